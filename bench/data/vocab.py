"""Hand-written vocabulary for the labelled retrieval set (bench/data/retrieval_set.py).

Every phrase here was written for the benchmark, not taken from the ranking under test. A
problem has the words a title uses (``name``), a sentence a memory body uses to describe what
was seen (``symptom``), and the words an agent uses later when it no longer remembers the
title (``asks``: a paraphrase that shares at most a word stem or two with the memory).
A component has its name and a description the body mentions, and ``asks`` the other way
people refer to it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    name: str
    symptom: str
    cause: str
    fix: str
    asks: str


@dataclass(frozen=True)
class Component:
    name: str
    describes: str
    asks: str


PROBLEMS = [
    Problem(
        "race condition",
        "two workers updated the same record concurrently and one write was lost",
        "the read and the write were not in one transaction",
        "wrapped the read-modify-write in a single transaction with a row lock",
        "lost update when writes happen concurrently",
    ),
    Problem(
        "memory leak",
        "resident memory grew by about 40 MB an hour until the container was killed",
        "a module-level dict kept a reference to every finished request",
        "replaced the dict with a bounded LRU and cleared it on shutdown",
        "process memory keeps growing until killed",
    ),
    Problem(
        "deadlock",
        "requests hung forever while two transactions waited on each other",
        "locks were taken in different orders in two code paths",
        "always lock the parent row before the children",
        "everything hangs waiting on locks",
    ),
    Problem(
        "timeout",
        "calls stalled for 30 seconds and then failed with a gateway error",
        "the upstream client had no connect timeout",
        "set connect and read timeouts and surfaced them in the logs",
        "calls stall then fail at the gateway",
    ),
    Problem(
        "off-by-one error",
        "the last item of every page was missing from the listing",
        "the cursor was compared with > instead of >=",
        "made the boundary inclusive and added a test for an exact page",
        "last item missing from each page",
    ),
    Problem(
        "stale cache",
        "users saw old values for minutes after an edit",
        "the invalidation ran before the commit finished",
        "moved the cache invalidation after commit",
        "edits show outdated values for minutes",
    ),
    Problem(
        "double charge",
        "customers were charged twice when the provider retried the webhook",
        "the handler was not idempotent",
        "stored the event id and ignored repeated deliveries",
        "customers billed twice on retried deliveries",
    ),
    Problem(
        "N+1 queries",
        "one listing issued hundreds of small SELECT statements",
        "the ORM loaded each relation lazily inside the loop",
        "prefetched the relation with one joined query",
        "listing issues hundreds of small SELECTs",
    ),
    Problem(
        "clock skew",
        "tokens were rejected as not yet valid on some hosts",
        "hosts drifted several seconds apart without NTP",
        "allowed 60 seconds of leeway and enabled time sync",
        "tokens rejected as not yet valid on some machines",
    ),
    Problem(
        "unicode normalization bug",
        "names with accents did not match their stored form",
        "input was NFD on macOS and NFC everywhere else",
        "normalize every name to NFC before comparing",
        "accented names fail to match",
    ),
    Problem(
        "connection pool exhaustion",
        "new requests waited for a database connection and then errored",
        "streaming responses held their connection until the client finished reading",
        "released the connection before streaming and raised the pool size to 20",
        "requests starve waiting for a database connection",
    ),
    Problem(
        "retry storm",
        "a short outage turned into an hour of overload as every client retried at once",
        "retries had no backoff and no jitter",
        "added exponential backoff with full jitter and a retry budget",
        "clients hammering the service with retries after an outage",
    ),
    Problem(
        "encoding mismatch",
        "exported files showed mojibake in spreadsheet tools",
        "the export wrote latin-1 while the header promised UTF-8",
        "always write UTF-8 with a BOM for spreadsheet exports",
        "exported files show garbled characters",
    ),
    Problem(
        "missing index",
        "a filtered listing took 4 seconds on the production dataset",
        "the query scanned the whole table for the tenant filter",
        "added a composite index on tenant and created date",
        "filtered listing is slow on production data",
    ),
    Problem(
        "timezone bug",
        "daily reports were off by one day for users east of UTC",
        "dates were computed from naive local datetimes",
        "store UTC everywhere and convert only for display",
        "daily report shows the wrong day for some users",
    ),
    Problem(
        "integer overflow",
        "counters wrapped around to negative numbers after a busy week",
        "the column was a 32-bit integer",
        "migrated the column to bigint",
        "counter goes negative after heavy traffic",
    ),
    Problem(
        "flaky test",
        "the suite failed about one run in ten on CI only",
        "the test depended on dictionary order and wall-clock time",
        "froze the clock and sorted the output before asserting",
        "suite fails intermittently on continuous integration",
    ),
    Problem(
        "permission error",
        "the service could not write its socket after the upgrade",
        "the new image ran as a non-root user",
        "created the runtime directory with the right owner at start-up",
        "service cannot write its socket file after upgrading",
    ),
    Problem(
        "silent data truncation",
        "long descriptions were cut at 255 characters without any warning",
        "the column was varchar(255) and strict mode was off",
        "widened the column to text and enabled strict mode",
        "long descriptions cut short without warning",
    ),
    Problem(
        "crash on empty input",
        "the handler raised an exception when the payload had no items",
        "the code took the first element without checking the length",
        "return early with an empty result for an empty payload",
        "handler blows up when the payload has no items",
    ),
]

# project -> components (the first few are shared by name with another project on purpose)
COMPONENTS: dict[str, list[Component]] = {
    "acme-api": [
        Component("session store", "where logged-in sessions live", "logged-in sessions"),
        Component("job queue", "background jobs and their workers", "background jobs"),
        Component("rate limiter", "per-tenant request throttling", "throttling of tenants"),
        Component("auth middleware", "bearer token verification", "token verification layer"),
        Component("pagination", "cursor-based paging of list endpoints", "paging through lists"),
        Component("webhook dispatcher", "outgoing event deliveries", "outgoing event deliveries"),
        Component("tenant resolver", "mapping hostnames to tenants", "hostname to tenant lookup"),
        Component("openapi schema", "the published API contract", "published API contract"),
        Component("health check", "the readiness and liveness probes", "readiness probe"),
        Component("request logger", "structured access logs", "access logging"),
        Component("search endpoint", "full-text search over projects", "full-text project search"),
        Component("file uploads", "multipart uploads to object storage", "uploading attachments"),
    ],
    "billing": [
        Component("invoice generator", "monthly invoice PDFs", "monthly invoices"),
        Component("ledger", "double-entry ledger of balances", "account balances"),
        Component("stripe webhook", "payment provider callbacks", "payment provider callbacks"),
        Component("job queue", "background jobs and their workers", "background jobs"),
        Component("currency conversion", "exchange rates and rounding", "exchange rate rounding"),
        Component("dunning emails", "reminders for failed payments", "failed payment reminders"),
        Component("tax calculator", "VAT and sales tax rules", "sales tax computation"),
        Component("usage metering", "counting billable API calls", "billable usage counts"),
        Component("refund flow", "partial and full refunds", "refunding customers"),
        Component("pricing table", "plans and their prices", "plan prices"),
    ],
    "frontend": [
        Component("session store", "where logged-in sessions live", "logged-in sessions"),
        Component("design system", "shared buttons, inputs and tokens", "shared UI kit"),
        Component("router", "client-side navigation", "client navigation"),
        Component("form validation", "field rules and error messages", "validating fields"),
        Component("data table", "sortable tables with virtual scrolling", "sortable grids"),
        Component("i18n bundles", "translated strings per locale", "translations per locale"),
        Component("bundle splitting", "lazy loaded chunks", "lazy loaded chunks"),
        Component("service worker", "offline caching of assets", "offline asset caching"),
        Component("charts", "dashboard graphs", "dashboard graphs"),
        Component("state store", "global client state", "global client state"),
    ],
    "infra": [
        Component("terraform modules", "reusable infrastructure code", "infrastructure code"),
        Component("kubernetes ingress", "routing external traffic", "external traffic routing"),
        Component("ci pipeline", "build and test workflow", "build workflow"),
        Component("backup job", "nightly database snapshots", "nightly snapshots"),
        Component("log shipping", "forwarding logs to the central store", "forwarding logs"),
        Component("secrets rotation", "rotating credentials", "rotating credentials"),
        Component("dns records", "zone files and records", "zone records"),
        Component("autoscaler", "scaling pods on load", "scaling pods"),
        Component("docker images", "base images and layers", "container base images"),
        Component("alerting rules", "paging thresholds", "paging thresholds"),
    ],
    "mobile-app": [
        Component("session store", "where logged-in sessions live", "logged-in sessions"),
        Component("push notifications", "notification delivery to devices", "device notifications"),
        Component("offline sync", "syncing edits made offline", "syncing offline edits"),
        Component("image cache", "thumbnails kept on device", "thumbnails on the device"),
        Component("deep links", "opening screens from URLs", "opening screens from URLs"),
        Component("onboarding flow", "first-run screens", "first-run screens"),
        Component("crash reporter", "collecting crash reports", "collecting crashes"),
        Component("in-app purchases", "store purchases and receipts", "purchase receipts"),
        Component("biometric login", "fingerprint and face unlock", "face unlock"),
        Component("release train", "app store submissions", "store submissions"),
    ],
    "data-pipeline": [
        Component("job queue", "background jobs and their workers", "background jobs"),
        Component("kafka consumer", "reading events from topics", "reading topic events"),
        Component("warehouse loader", "loading batches into the warehouse", "warehouse batches"),
        Component("dedup stage", "dropping duplicate events", "dropping duplicates"),
        Component("schema registry", "versioned event schemas", "versioned event schemas"),
        Component("backfill script", "reprocessing historical data", "reprocessing history"),
        Component("airflow dags", "scheduled workflows", "scheduled workflows"),
        Component("parquet writer", "columnar output files", "columnar output files"),
        Component("late events", "events arriving after their window", "late arriving events"),
        Component("metrics export", "pipeline health metrics", "pipeline health metrics"),
    ],
}

# decision chains: (topic, first choice, later choice, reason for the change, how people ask)
DECISIONS = [
    (
        "session store backend",
        "redis",
        "postgres",
        "eviction dropped sessions under memory pressure",
        "where sessions are stored",
    ),
    (
        "job queue broker",
        "rabbitmq",
        "redis streams",
        "one less service to operate",
        "which broker runs background jobs",
    ),
    (
        "api versioning scheme",
        "url prefix",
        "accept header",
        "clients could not pin minor versions",
        "how the API is versioned",
    ),
    (
        "frontend state management",
        "redux",
        "zustand",
        "too much boilerplate per feature",
        "library for client state",
    ),
    (
        "css approach",
        "sass modules",
        "tailwind",
        "styles drifted between teams",
        "how styling is done",
    ),
    (
        "error tracking service",
        "self-hosted sentry",
        "hosted sentry",
        "upgrades took a day each",
        "where errors are reported",
    ),
    (
        "feature flag tool",
        "env variables",
        "unleash",
        "flags needed per-tenant targeting",
        "how features are toggled",
    ),
    (
        "deployment strategy",
        "blue-green",
        "canary releases",
        "blue-green doubled the cost",
        "how releases roll out",
    ),
    (
        "log format",
        "plain text",
        "json lines",
        "the log store could not parse multiline text",
        "what format logs use",
    ),
    ("test runner", "nose", "pytest", "nose is unmaintained", "which test framework"),
    (
        "package manager",
        "pip-tools",
        "uv",
        "lock resolution took minutes",
        "how dependencies are locked",
    ),
    (
        "orm choice",
        "raw sql",
        "sqlalchemy core",
        "hand-written queries repeated tenant filters",
        "how the database is queried",
    ),
    (
        "mobile framework",
        "react native",
        "flutter",
        "animations stuttered on older phones",
        "cross-platform app toolkit",
    ),
    (
        "warehouse engine",
        "redshift",
        "bigquery",
        "cluster resizing caused downtime",
        "analytics warehouse",
    ),
    (
        "secret storage",
        "env files",
        "vault",
        "secrets leaked into CI logs",
        "where credentials are kept",
    ),
    (
        "monorepo tool",
        "lerna",
        "turborepo",
        "builds rebuilt untouched packages",
        "build orchestration for packages",
    ),
    ("api gateway", "nginx", "envoy", "we needed gRPC routing", "proxy in front of services"),
    ("date library", "moment", "date-fns", "bundle size", "JS library for dates"),
    (
        "email provider",
        "sendgrid",
        "postmark",
        "transactional mail landed in spam",
        "who sends transactional mail",
    ),
    ("cdn", "cloudfront", "fastly", "purges took minutes", "edge caching provider"),
    (
        "background scheduler",
        "cron on a vm",
        "kubernetes cronjobs",
        "the vm was a single point of failure",
        "where scheduled tasks run",
    ),
    (
        "search engine",
        "postgres full text",
        "meilisearch",
        "typo tolerance",
        "engine behind search",
    ),
    ("auth provider", "home-grown jwt", "auth0", "MFA and SSO requests", "identity provider"),
    ("metrics stack", "statsd", "prometheus", "labels per tenant", "how metrics are collected"),
    (
        "code review rule",
        "one approval",
        "two approvals for migrations",
        "a bad migration dropped a column",
        "how many reviewers",
    ),
]

CONVENTIONS = [
    (
        "migration files",
        "name migrations with a four digit prefix and a verb",
        "naming of migration files",
    ),
    (
        "commit messages",
        "write commit subjects in the imperative under 72 characters",
        "style of commit subjects",
    ),
    ("branch names", "prefix branches with the issue number", "how to name branches"),
    ("error codes", "error codes are area.reason in snake case", "format of error identifiers"),
    ("feature folders", "group code by feature, not by layer", "folder layout by feature"),
    (
        "test fixtures",
        "build fixtures with factories, never shared json files",
        "how fixtures are made",
    ),
    (
        "logging fields",
        "log request_id and tenant_id on every line",
        "which fields every log line carries",
    ),
    (
        "config precedence",
        "flags override env which overrides the config file",
        "which setting wins",
    ),
    ("api errors", "return problem+json bodies with a stable type uri", "shape of error responses"),
    ("timestamps", "store timestamps as UTC ISO-8601 strings", "how times are stored"),
    (
        "dependency updates",
        "batch dependency bumps weekly on Mondays",
        "when dependencies get bumped",
    ),
    (
        "feature flags cleanup",
        "remove a flag within two sprints of full rollout",
        "removing old flags",
    ),
    ("pull request size", "keep pull requests under 400 changed lines", "how big a PR may be"),
    (
        "database naming",
        "tables are plural snake case, columns singular",
        "naming tables and columns",
    ),
    (
        "secrets in tests",
        "tests read fake secrets from a fixture, never from env",
        "secrets during tests",
    ),
]

DISCOVERIES = [
    (
        "sqlite wal checkpoint",
        "a long reader keeps the WAL growing because checkpoints cannot pass it",
        "why the write-ahead log keeps growing",
    ),
    (
        "postgres vacuum",
        "autovacuum skipped the events table because of a long idle transaction",
        "table bloat despite autovacuum",
    ),
    (
        "python gil",
        "CPU-bound thumbnailing does not speed up with threads",
        "threads give no speedup for image work",
    ),
    (
        "docker layer cache",
        "copying the lockfile before the source keeps the install layer cached",
        "speeding up image builds",
    ),
    (
        "kafka rebalance",
        "a consumer that blocks longer than max.poll.interval.ms triggers a rebalance",
        "consumers keep rebalancing",
    ),
    (
        "http keepalive",
        "the load balancer closes idle connections after 60 seconds",
        "connections reset after a minute idle",
    ),
    (
        "git lfs",
        "CI clones skip LFS objects unless the checkout step asks for them",
        "large files missing in CI checkouts",
    ),
    (
        "node event loop",
        "a synchronous JSON.parse of 50 MB blocks every request",
        "server freezes on big JSON bodies",
    ),
    (
        "ios background fetch",
        "the OS throttles background fetch for rarely opened apps",
        "background refresh rarely runs",
    ),
    ("android doze", "doze mode delays alarms by up to 15 minutes", "alarms fire late on Android"),
    (
        "terraform state",
        "two applies at once corrupted the state without a lock table",
        "state file got corrupted",
    ),
    (
        "dns ttl",
        "clients cached the old address for the full 24 hour TTL",
        "clients kept hitting the old address",
    ),
    (
        "s3 consistency",
        "listing right after a write now returns the new object",
        "object listings after writes",
    ),
    (
        "celery prefetch",
        "prefetch multiplier 4 let one worker hoard long tasks",
        "one worker grabs all the long tasks",
    ),
    (
        "bigquery cost",
        "SELECT star on partitioned tables scans every partition",
        "query bills are huge",
    ),
    (
        "react rerenders",
        "an inline object prop re-rendered every row of the table",
        "table rerenders on every keystroke",
    ),
    (
        "pytest xdist",
        "module-scoped fixtures run once per worker, not once per run",
        "fixtures run several times in parallel tests",
    ),
    (
        "nginx buffering",
        "proxy buffering held server-sent events until the buffer filled",
        "live events arrive in bursts",
    ),
    (
        "jwt expiry",
        "refresh tokens were accepted after logout because nothing revoked them",
        "sessions survive logging out",
    ),
    (
        "unicode filenames",
        "macOS stores filenames decomposed, Linux as given",
        "filenames differ between Mac and Linux",
    ),
]

TECH = [
    "redis",
    "postgres",
    "sqlite",
    "kafka",
    "celery",
    "nginx",
    "docker",
    "terraform",
    "react",
    "graphql",
    "grpc",
    "s3",
    "elasticsearch",
    "rabbitmq",
    "prometheus",
    "grafana",
    "airflow",
    "pandas",
    "fastapi",
    "django",
    "flask",
    "webpack",
    "vite",
    "swift",
    "kotlin",
]

# common words that fill ordinary notes (they make 'old-but-relevant' answers hard to see)
COMMON_NOTES = [
    "ran the test suite after the build and fixed the failing test",
    "the deploy failed with an error in the config and the fix was a config update",
    "checked the logs for the error and the timeout in the build",
    "updated the test config and the cache settings before the deploy",
    "the build error came back after the update so the fix was reverted",
    "added a test for the error path and updated the docs for the config",
    "the cache timeout error showed up again during the deploy",
    "reviewed the build logs, the test timeout and the deploy config",
    "fixed a typo in the config file and re-ran the failing build",
    "the error rate went down after the deploy and the cache update",
]

COMMON_TITLES = [
    ("deploy", "config", "error"),
    ("build", "cache", "timeout"),
    ("test", "config", "update"),
    ("deploy", "cache", "error"),
    ("build", "test", "error"),
    ("config", "timeout", "update"),
    ("deploy", "timeout", "error"),
    ("cache", "build", "update"),
]
