"""Hand-written *everyday* memories for the retrieval set, each with the question a developer
asks months later in other words.

Unlike the generated journal (``vocab.py``), whose bug fixes share one template, each memory
here is its own story, phrased the way an agent saves one, across web, backend, data,
infrastructure, mobile and tooling work. The questions were written from each memory's
meaning before any ranking was run on them and were not changed after; ``retrieval_set.py``
asserts that no question shares a content word or stem with its memory (the rule of the
``concept`` queries), so lexical search finds them only by accident.

Each entry: (type, title, content, question).
"""

from __future__ import annotations

MEMORIES = [
    (
        "bugfix",
        "Fixed the race in the ledger balance reconciliation worker",
        "Two reconciliation jobs updated the same balance row at once and one update was lost."
        " The worker now takes a row lock (SELECT ... FOR UPDATE) before recomputing.",
        "why did account totals diverge",
    ),
    (
        "bugfix",
        "Memory leak in the image thumbnail service",
        "RSS grew steadily until the pod was OOM-killed: decoded PIL images were cached in a"
        " global dict. Replaced it with an LRU of 256 entries.",
        "why did the picture resizer keep dying after a few hours",
    ),
    (
        "decision",
        "Switched session storage from cookies to Redis",
        "Cookie sessions exceeded the 4 KB header limit once we stored cart contents; sessions"
        " now live in Redis with a 7-day TTL.",
        "where do we keep logged-in user state at present",
    ),
    (
        "bugfix",
        "Flaky checkout test fixed",
        "test_checkout_total failed about one run in ten on CI because it depended on dict"
        " ordering of the tax lines; it now sorts them.",
        "purchase spec randomly red in the pipeline",
    ),
    (
        "bugfix",
        "Timezone bug in the weekly digest email",
        "Users east of UTC got the digest a day early because the job computed the week"
        " boundary in server time; it now uses each user's zone.",
        "newsletter arrives a date too soon for folks in Asia",
    ),
    (
        "manual",
        "Upgraded Postgres from 13 to 16",
        "Used pg_upgrade --link; the pg_trgm extension had to be updated first. Downtime was"
        " 4 minutes.",
        "how did we move the relational database to a newer major version",
    ),
    (
        "architecture",
        "Rate limiting for the public API",
        "Token bucket per API key, 100 requests per minute, enforced in the gateway; it returns"
        " 429 with Retry-After.",
        "what stops a customer from flooding our endpoints",
    ),
    (
        "bugfix",
        "CSV export garbles accented names",
        "Excel opened the file as Windows-1252; we now write a UTF-8 BOM at the start.",
        "spreadsheet download shows weird characters for French people",
    ),
    (
        "bugfix",
        "Slow dashboard query: added a composite index",
        "The orders-by-customer query did a sequential scan over 12M rows; an index on"
        " (customer_id, created_at) took it from 4 s to 20 ms.",
        "why was the summary screen taking seconds to load",
    ),
    (
        "bugfix",
        "Stripe webhook signature failures",
        "Signatures failed after we added body-parsing middleware, which changed the raw bytes;"
        " the webhook route now reads the raw body.",
        "card processor callbacks rejected as unverified",
    ),
    (
        "config",
        "Docker image size cut from 1.2 GB to 180 MB",
        "Multi-stage build on python:3.12-slim, no build tools in the final stage.",
        "how did the container get so much smaller",
    ),
    (
        "bugfix",
        "Retry storm after the auth outage",
        "When auth went down for two minutes every client retried immediately and kept it down"
        " for an hour; added exponential backoff with jitter.",
        "brief sign-in unavailability snowballed into a long meltdown",
    ),
    (
        "decision",
        "Feature flags moved to Unleash",
        "Replaced our homegrown flags table with a self-hosted Unleash; gradual rollouts by"
        " percentage.",
        "tool we use to switch functionality on for some users",
    ),
    (
        "bugfix",
        "Off-by-one in pagination dropped the last item",
        "The page query used OFFSET page*size with page starting at 1, so the first page"
        " skipped 20 rows and the final entry never showed.",
        "lists are missing an element at the end",
    ),
    (
        "bugfix",
        "Deadlock between invoice and payment jobs",
        "The two jobs locked invoice and payment rows in opposite order; both now lock the"
        " invoice first.",
        "billing tasks froze waiting on each other",
    ),
    (
        "config",
        "Log retention cut to 14 days",
        "Elasticsearch disk was 90% full; an ILM policy now deletes application logs after 14"
        " days and audit logs after a year.",
        "how long do we hold on to output from the apps",
    ),
    (
        "decision",
        "Secrets moved to Vault",
        "Database passwords and API keys no longer live in .env files; services read them from"
        " Vault at start with short-lived tokens.",
        "where are credentials stored",
    ),
    (
        "bugfix",
        "N+1 queries on the orders list",
        "The ORM lazily loaded each order's customer; added select_related and the page went"
        " from 300 queries to 3.",
        "hundreds of tiny DB hits when rendering purchases",
    ),
    (
        "bugfix",
        "Clock skew broke JWT validation",
        "One node's clock ran 3 minutes fast, so tokens it issued were 'not yet valid'"
        " elsewhere; enabled chrony and allowed 30 s leeway.",
        "sign-in credentials refused as premature on some machines",
    ),
    (
        "config",
        "Image uploads limited to 10 MB",
        "Nginx client_max_body_size was 1 MB and uploads failed with 413; raised to 10 MB and"
        " the app now checks before sending.",
        "big photos won't attach",
    ),
    (
        "decision",
        "Moved CI from Jenkins to GitHub Actions",
        "Jenkins agents kept running out of disk; workflows now run on hosted runners with a"
        " cache for pip.",
        "why did we abandon the old build server",
    ),
    (
        "bugfix",
        "Search endpoint returns results in the wrong language",
        "The Accept-Language header was ignored and every query hit the English index; it now"
        " picks the index from the header.",
        "lookup replies come back in a tongue the visitor can't read",
    ),
    (
        "config",
        "Health check made shallow",
        "Kubernetes restarted pods whenever the database was slow because the liveness probe"
        " queried it; liveness now only checks the process, readiness checks the DB.",
        "why were instances recycled each time storage lagged",
    ),
    (
        "bugfix",
        "Currency rounding errors in refunds",
        "Refund amounts were computed with floats and came out a cent off; switched to Decimal"
        " with banker's rounding.",
        "money back to buyers was a penny wrong",
    ),
    (
        "bugfix",
        "Onboarding tour skipped on mobile",
        "The tour's first step targeted a sidebar element hidden under 768 px, so it silently"
        " aborted; it now falls back to a centred modal.",
        "newcomers on phones never see the welcome walkthrough",
    ),
    (
        "bugfix",
        "Webhook deliveries retried forever",
        "Subscribers that returned 500 got retried every minute indefinitely; capped at 8"
        " attempts with backoff and a dead-letter table.",
        "notifications to partner URLs kept going endlessly",
    ),
    (
        "decision",
        "Background jobs moved from cron to Celery beat",
        "Cron on the single VM meant nothing ran when it rebooted; periodic tasks now live in"
        " Celery beat with a Redis broker.",
        "scheduled work stopped any time that one box restarted",
    ),
    (
        "bugfix",
        "Integer overflow in the view counter",
        "The views column was a 32-bit int and wrapped negative past 2.1 billion; migrated to"
        " bigint.",
        "popular video showed a minus number of plays",
    ),
    (
        "bugfix",
        "Dark mode colours in charts",
        "Chart lines used hard-coded black and vanished on the dark theme; they now read the"
        " CSS variables.",
        "graphs invisible at night setting",
    ),
    (
        "bugfix",
        "Unicode normalization in usernames",
        "'José' typed on macOS (NFD) and on Windows (NFC) made two different accounts;"
        " usernames are normalized to NFC on signup and login.",
        "same person ended up with duplicate profiles because of accents",
    ),
    (
        "bugfix",
        "Service worker served a stale app shell",
        "After deploys, users kept the old JavaScript until they closed every tab; the worker"
        " now calls skipWaiting and the page reloads on update.",
        "people stuck on the previous release till they quit the browser",
    ),
    (
        "manual",
        "Terraform state lock stuck",
        "A cancelled apply left the DynamoDB lock in place; documented force-unlock with the"
        " lock ID and added a timeout to the pipeline.",
        "infrastructure changes blocked after someone aborted a run",
    ),
    (
        "bugfix",
        "Password reset links expired too fast",
        "The reset token TTL was 5 minutes and email delivery often took longer; now 60"
        " minutes, single use.",
        "forgot-my-login messages are dead by the time they show up",
    ),
    (
        "manual",
        "DNS TTL lowered before the migration",
        "Dropped the A record TTL to 60 s two days before moving to the new load balancer so"
        " the switch propagated fast.",
        "how we made the domain cutover quick",
    ),
    (
        "bugfix",
        "Autoscaler flapping",
        "The HPA scaled pods up and down every minute because CPU hovered at the 70% target;"
        " added a 5-minute stabilization window.",
        "capacity kept growing and shrinking nonstop",
    ),
    (
        "decision",
        "Decided on Postgres full-text search instead of Elasticsearch",
        "Our corpus is 2M rows; tsvector with a GIN index answers in 30 ms and saves running"
        " another cluster.",
        "why we didn't adopt a dedicated lookup engine",
    ),
    (
        "bugfix",
        "Push notifications silently dropped on iOS",
        "APNs tokens were registered against the sandbox environment in production builds;"
        " switched the entitlement to production.",
        "iphone alerts never show up for real customers",
    ),
    (
        "pattern",
        "Backup restore tested monthly",
        "Last year the nightly pg_dump had been empty for three weeks before anyone noticed; a"
        " job now restores the latest dump into a scratch database every month and checks row"
        " counts.",
        "do we verify our copies can actually be recovered",
    ),
    (
        "bugfix",
        "Mobile app crashes on empty cart",
        "Opening the cart with no items indexed items[0] and crashed on Android; guarded, and"
        " it shows an empty state.",
        "phone application dies when the basket has nothing in it",
    ),
    (
        "bugfix",
        "Connection pool exhausted under load",
        "At peak the API held connections across an external HTTP call; the pool of 20 ran dry"
        " and requests queued for seconds. We release the connection before the call.",
        "database handles run out when traffic spikes",
    ),
    (
        "decision",
        "Email templates moved to MJML",
        "Hand-written HTML tables broke in Outlook; MJML compiles responsive markup that"
        " renders everywhere we test.",
        "why newsletters looked mangled in Microsoft's mail program",
    ),
    (
        "bugfix",
        "Tax calculated on the shipping fee",
        "EU rules require VAT on delivery charges; the calculator now adds them to the taxable"
        " base.",
        "does the levy apply to postage too",
    ),
    (
        "manual",
        "Bundle split by route",
        "The initial JavaScript was 2.4 MB; lazy-loading each route with dynamic import cut the"
        " first load to 380 KB.",
        "what made the site's opening paint faster",
    ),
    (
        "bugfix",
        "i18n keys missing in German",
        "New strings were added only to en.json, so de users saw raw keys like checkout.title;"
        " CI now fails when a locale lacks a key.",
        "translated UI shows placeholder identifiers instead of text",
    ),
    (
        "bugfix",
        "gRPC deadline exceeded between services",
        "The orders service called inventory with a 1 s deadline while inventory p99 was"
        " 1.4 s; raised it to 3 s and added a cache.",
        "the purchase system gives up on the stock system too early",
    ),
    (
        "bugfix",
        "Daylight saving broke the cron schedule",
        "A job set for 02:30 local time ran twice in autumn and skipped in spring; schedules"
        " are now in UTC.",
        "nightly task doubled and vanished around clock changes",
    ),
    (
        "decision",
        "Adopted ruff instead of flake8 and isort",
        "One tool, 50x faster on our monorepo, and the config lives in pyproject.toml.",
        "which linter do we standardise on for python",
    ),
    (
        "bugfix",
        "Silent truncation of long product descriptions",
        "The column was VARCHAR(255) and MySQL in non-strict mode cut values without error;"
        " widened to TEXT and enabled strict mode.",
        "item blurbs getting chopped with no warning",
    ),
    (
        "bugfix",
        "Permission denied on the Docker socket after upgrade",
        "The deploy user lost membership in the docker group when the AMI was rebuilt; added"
        " it to the cloud-init script.",
        "release account can't reach the container daemon anymore",
    ),
    (
        "decision",
        "Chose SQLite for the desktop app",
        "Single file, no server for users to install, and WAL mode handles our write rate.",
        "what embedded storage the offline client uses",
    ),
    (
        "discovery",
        "Load test: checkout handles 800 rps",
        "k6 against staging with 200 virtual users; p95 stayed under 300 ms until the payment"
        " mock saturated.",
        "how much traffic can purchasing take before it slows",
    ),
    (
        "bugfix",
        "Cache stampede on product pages",
        "When the popular-items key expired, hundreds of requests rebuilt it at once and the DB"
        " spiked; now one request refreshes while the others get the stale value.",
        "everyone recomputing the same thing simultaneously when an entry times out",
    ),
    (
        "manual",
        "Feature: CSV import of contacts",
        "Accepts up to 50k rows, validates emails, reports bad lines with their numbers, and"
        " runs in a background job.",
        "bringing an address book in from a spreadsheet",
    ),
    (
        "config",
        "Sentry noise: ignored client network errors",
        "Half our error volume was 'Failed to fetch' from users on flaky wifi; filtered them in"
        " beforeSend.",
        "crash reporter flooded by people with bad internet",
    ),
    (
        "bugfix",
        "Kafka consumer lag after deploy",
        "Rebalancing on every rolling restart paused consumption for minutes; enabled"
        " cooperative sticky assignment and static membership.",
        "event stream falls behind each time we ship",
    ),
    (
        "bugfix",
        "Deep links open the store instead of the app",
        "The apple-app-site-association file was served with a redirect, which iOS rejects; it"
        " is now served directly with the right content type.",
        "tapping a shared url lands in the marketplace, not inside our program",
    ),
    (
        "manual",
        "Slow test suite: parallelized with xdist",
        "The suite took 22 minutes; running it on 8 workers with per-worker databases brought"
        " it to 4.",
        "how we sped up the automated checks",
    ),
    (
        "pattern",
        "Dependency pinning policy",
        "Applications pin exact versions with a lock file; libraries declare ranges. Renovate"
        " opens weekly update PRs.",
        "rules for fixing package releases in what we deploy",
    ),
    (
        "bugfix",
        "GraphQL query depth limit",
        "A client sent a 30-level nested query that took the API down; depth is now capped at"
        " 8 and cost analysis rejects expensive queries.",
        "someone crashed the backend with a deeply recursive request",
    ),
    (
        "bugfix",
        "Accessibility: focus trapped in the modal",
        "Keyboard users could not leave the signup dialog because focus never returned to the"
        " page; added Escape handling and focus restore.",
        "people navigating without a mouse got stuck in the popup",
    ),
]
