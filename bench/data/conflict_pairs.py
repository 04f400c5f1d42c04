"""A labelled set of memory pairs for the conflict scan's quality benchmark.

Written by hand as slot-filled templates (never derived from the scan under test): each pair
is an older memory and a newer one, as an agent would have saved them months apart, with a
label saying whether the newer one contradicts or replaces the older one.

Kinds:
- ``contradiction`` (conflict): a decision reversed ("Use Celery for background jobs" ->
  "Background jobs move from Celery to RQ").
- ``superseded_config`` (conflict): a setting changed ("API rate limit is 100/min" -> "API
  rate limit raised to 300/min").
- ``refinement`` (no conflict): the newer memory adds detail to the older decision.
- ``lookalike`` (no conflict): the two share words but are about different things.

:func:`labelled_pairs` returns at least 200 pairs, deterministically.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CONFLICT_KINDS = ("contradiction", "superseded_config")


@dataclass(frozen=True)
class Memory:
    """One memory as an agent saves it."""

    title: str
    content: str
    type: str


@dataclass(frozen=True)
class LabelledPair:
    """An older and a newer memory of one project, and whether they conflict."""

    kind: str
    project: str
    older: Memory
    newer: Memory

    @property
    def conflict(self) -> bool:
        """Whether the newer memory contradicts or replaces the older one."""
        return self.kind in CONFLICT_KINDS


# (component, old choice, new choice, what it is for, why it changed)
CHOICES = [
    ("session store", "PostgreSQL", "Redis", "user sessions", "session reads dominated DB load"),
    ("job queue", "Celery", "RQ", "background jobs", "Celery's beat scheduler kept dying"),
    ("HTTP client", "requests", "httpx", "outbound API calls", "we need async and HTTP/2"),
    ("log format", "plain text", "JSON lines", "service logs", "Loki cannot parse plain text"),
    ("test runner", "unittest", "pytest", "the unit tests", "fixtures cut the boilerplate"),
    ("package manager", "npm", "pnpm", "frontend dependencies", "installs took four minutes"),
    ("ORM", "SQLAlchemy", "raw SQL with psycopg", "reporting queries", "the ORM hid N+1 queries"),
    (
        "API auth",
        "JWT bearer tokens",
        "opaque session tokens",
        "API authentication",
        "JWTs could not be revoked",
    ),
    ("date library", "moment.js", "date-fns", "date formatting", "moment is in maintenance mode"),
    ("styling", "Sass modules", "Tailwind", "component styling", "design tokens live in Tailwind"),
    (
        "feature flags",
        "LaunchDarkly",
        "an in-house flags table",
        "feature flags",
        "the LaunchDarkly bill tripled",
    ),
    (
        "search backend",
        "Elasticsearch",
        "Postgres full-text search",
        "product search",
        "the cluster cost more than it saved",
    ),
    (
        "container base image",
        "Alpine",
        "Debian slim",
        "the Docker images",
        "musl broke the numpy wheels",
    ),
    ("state management", "Redux", "Zustand", "frontend state", "Redux boilerplate slowed us"),
    ("migration tool", "Alembic", "sqitch", "schema migrations", "DBAs want plain SQL files"),
    (
        "CI provider",
        "Travis CI",
        "GitHub Actions",
        "continuous integration",
        "Travis queue times were 20 minutes",
    ),
    ("secrets storage", ".env files", "Vault", "service secrets", "the audit flagged .env files"),
    ("API style", "REST endpoints", "GraphQL", "the mobile API", "mobile needed fewer round trips"),
    ("email provider", "SendGrid", "Amazon SES", "transactional email", "SES is a tenth the price"),
    ("monitoring", "Datadog", "Prometheus and Grafana", "metrics", "Datadog costs per host"),
    (
        "websocket library",
        "Socket.IO",
        "native WebSockets",
        "live updates",
        "Socket.IO fallbacks broke behind the proxy",
    ),
    ("linting", "flake8 and isort", "ruff", "Python linting", "ruff runs in 50 ms"),
    ("type checker", "pyright", "mypy --strict", "type checking", "CI images already carry mypy"),
    ("bundler", "webpack", "Vite", "the frontend build", "webpack builds took 90 seconds"),
    ("cache layer", "Memcached", "Redis", "page caching", "we need key expiry events"),
    ("payment provider", "Braintree", "Stripe", "card payments", "Stripe supports SEPA"),
    ("file storage", "the local disk", "S3", "user uploads", "autoscaled nodes lost files"),
    ("password hashing", "bcrypt", "argon2id", "password hashing", "the security review"),
    ("deploy target", "Heroku", "Kubernetes", "production deploys", "Heroku dynos were too small"),
    (
        "ID format",
        "auto-increment integers",
        "UUIDv7",
        "public record IDs",
        "integer IDs leaked order counts",
    ),
    ("i18n library", "gettext", "Fluent", "translations", "plural rules broke in Polish"),
    ("PDF generation", "wkhtmltopdf", "WeasyPrint", "invoice PDFs", "wkhtmltopdf is unmaintained"),
]

# (setting, where it lives, old value, new value, why)
SETTINGS = [
    (
        "API rate limit",
        "gateway.yaml",
        "100 requests per minute",
        "300 requests per minute",
        "partners hit the limit during batch imports",
    ),
    ("database connection pool size", "settings/db.py", "10", "25", "pool exhaustion at peak"),
    ("upload size limit", "nginx.conf", "10 MB", "50 MB", "customers upload scanned contracts"),
    (
        "access token lifetime",
        "auth/config.py",
        "15 minutes",
        "1 hour",
        "mobile users were logged out too often",
    ),
    ("webhook retry attempts", "webhooks/settings.py", "3", "8", "partners have long outages"),
    (
        "request timeout for the billing API",
        "billing/client.py",
        "5 seconds",
        "20 seconds",
        "month-end invoices take longer",
    ),
    ("Gunicorn worker count", "gunicorn.conf.py", "4 workers", "9 workers", "we moved to 4 cores"),
    (
        "cache TTL for product pages",
        "cache.py",
        "60 seconds",
        "10 minutes",
        "the catalogue changes daily",
    ),
    ("log retention", "loki.yaml", "30 days", "7 days", "storage costs"),
    (
        "minimum password length",
        "auth/policy.py",
        "8 characters",
        "12 characters",
        "the security review",
    ),
    ("Node.js version", ".nvmrc", "Node 18", "Node 22", "Node 18 reached end of life"),
    ("Python version", "pyproject.toml", "Python 3.10", "Python 3.12", "3.12 is faster"),
    (
        "test coverage threshold",
        "setup.cfg",
        "80 percent",
        "90 percent",
        "the team agreed to raise the bar",
    ),
    (
        "session idle timeout",
        "settings/session.py",
        "30 minutes",
        "8 hours",
        "support agents keep tabs open all day",
    ),
    (
        "max page size of the list API",
        "api/pagination.py",
        "100 items",
        "500 items",
        "the export tool pages too much",
    ),
    ("backup schedule", "cron/backup", "nightly at 02:00", "every 6 hours", "RPO is now 6 hours"),
    (
        "Celery task time limit",
        "celeryconfig.py",
        "300 seconds",
        "900 seconds",
        "report generation needs longer",
    ),
    ("image thumbnail width", "media/settings.py", "200 pixels", "320 pixels", "retina screens"),
    ("default locale", "i18n/config.ts", "en-US", "en-GB", "most users are in the UK"),
    (
        "Postgres statement timeout",
        "postgresql.conf",
        "30 seconds",
        "5 seconds",
        "runaway queries blocked vacuum",
    ),
    (
        "feature branch lifetime rule",
        "CONTRIBUTING.md",
        "two weeks",
        "three days",
        "long branches caused merge pain",
    ),
    ("JWT signing algorithm", "auth/jwt.py", "HS256", "RS256", "services verify without secret"),
    (
        "Kubernetes replica count for api",
        "k8s/api.yaml",
        "2 replicas",
        "6 replicas",
        "traffic grew threefold",
    ),
    (
        "CORS allowed origins",
        "settings/cors.py",
        "every origin",
        "app.example.com only",
        "the pentest flagged wildcard CORS",
    ),
    (
        "Redis maxmemory policy",
        "redis.conf",
        "noeviction",
        "allkeys-lru",
        "the cache filled up and writes failed",
    ),
]

# (subject of the older memory, a detail the newer memory adds)
REFINEMENTS = [
    "keys are prefixed with the tenant id",
    "connections go through PgBouncer in transaction mode",
    "retries use exponential backoff capped at 60 seconds",
    "its config lives in config/services.toml",
    "the integration tests cover it with a docker-compose fixture",
    "errors are reported to Sentry with the request id",
    "the client is created once per process and reused",
    "a health check runs every 30 seconds",
]

# Pairs that share words but are about different things.
LOOKALIKES = [
    (
        (
            "Fix flaky login test on CI",
            "The login test raced the session cookie write; added an explicit wait for the cookie.",
        ),
        (
            "Fix flaky export test on CI",
            "The CSV export test depended on dict ordering; sort the rows before comparing.",
        ),
    ),
    (
        (
            "Cache invalidation bug in product pages",
            "Product pages kept stale prices because the cache key ignored the currency.",
        ),
        (
            "Cache warmup script for search results",
            "A nightly job now warms the search cache with the top 500 queries.",
        ),
    ),
    (
        (
            "Rate limit the password reset endpoint",
            "Password reset is limited to 5 requests per hour per email to stop enumeration.",
        ),
        (
            "Rate limit dashboard shows per-partner usage",
            "Added a Grafana panel with rate limit usage per partner key.",
        ),
    ),
    (
        (
            "Migration adds index on orders.created_at",
            "Reports filtered by date were doing sequential scans on orders.",
        ),
        (
            "Migration renames customers.phone to phone_number",
            "The mobile team wanted consistent naming with the API.",
        ),
    ),
    (
        (
            "Timeout in the PDF worker",
            "Large invoices timed out in the PDF worker; split rendering by page.",
        ),
        (
            "Timeout handling in the webhook sender",
            "Webhook sender now marks a delivery failed after the timeout instead of hanging.",
        ),
    ),
    (
        (
            "Docker build cache broken on CI",
            "The build cache missed because COPY . came before dependency install.",
        ),
        (
            "Docker compose file for local Postgres",
            "Added docker-compose.yml with Postgres 16 for local development.",
        ),
    ),
    (
        (
            "Token refresh race in the mobile app",
            "Two parallel requests refreshed the token at once; serialize refreshes.",
        ),
        (
            "Token counting for the LLM summary feature",
            "Summaries count tokens with tiktoken before calling the model.",
        ),
    ),
    (
        (
            "Upload progress bar freezes at 99%",
            "The progress bar waited for the server's virus scan; show a scanning state.",
        ),
        (
            "Upload endpoint validates MIME type",
            "Uploads are checked with python-magic, not the client's content type.",
        ),
    ),
    (
        (
            "Queue backlog alert threshold",
            "Alert when the email queue holds more than 10k messages for 5 minutes.",
        ),
        (
            "Queue consumer crashes on malformed JSON",
            "The consumer now dead-letters messages that are not valid JSON.",
        ),
    ),
    (
        ("Search results ignore accents", "Search normalizes accents so cafe matches café."),
        ("Search page layout on mobile", "Filters collapse into a drawer on narrow screens."),
    ),
]


def _contradiction(
    component: str, old: str, new: str, purpose: str, why: str, variant: int
) -> tuple[Memory, Memory]:
    older = Memory(
        f"Use {old} for {purpose}",
        f"Decision: {old} is our {component} for {purpose}. Chosen for team familiarity and"
        f" because it was already deployed.",
        "decision",
    )
    if variant % 2:
        # Paraphrased: the newer memory never names the old choice.
        return older, Memory(
            f"{purpose[0].upper()}{purpose[1:]} now on {new}",
            f"{new} handles {purpose} from this sprint on. Reason: {why}.",
            "decision",
        )
    newer_titles = [
        f"Switch {purpose} from {old} to {new}",
        f"Replace {old} with {new} as {component}",
        f"Stop using {old} for {purpose}",
    ]
    newer = Memory(
        newer_titles[(variant // 2) % len(newer_titles)],
        f"We moved {purpose} to {new}; {old} is no longer used for the {component}. Reason: {why}.",
        "decision",
    )
    return older, newer


def _superseded(
    setting: str, where: str, old: str, new: str, why: str, variant: int
) -> tuple[Memory, Memory]:
    older = Memory(
        f"{setting[0].upper()}{setting[1:]} is {old}",
        f"Configured the {setting} to {old} in {where}.",
        "config",
    )
    verbs = ["changed to", "now", "updated to"]
    newer = Memory(
        f"{setting[0].upper()}{setting[1:]} {verbs[variant % len(verbs)]} {new}",
        f"The {setting} in {where} went from {old} to {new} because {why}.",
        "config",
    )
    return older, newer


def _refinement(component: str, old: str, purpose: str, detail: str) -> tuple[Memory, Memory]:
    older = Memory(
        f"Use {old} for {purpose}",
        f"Decision: {old} is our {component} for {purpose}.",
        "decision",
    )
    newer = Memory(
        f"How the {old} {component} is set up",
        f"For the {old} {component}, {detail}. This refines the original decision; {old} stays.",
        "pattern",
    )
    return older, newer


def labelled_pairs(seed: int = 7) -> list[LabelledPair]:
    """Every labelled pair (at least 200), in a fixed order."""
    rng = random.Random(seed)
    projects = ["shop-backend", "mobile-app", "data-platform"]
    pairs: list[LabelledPair] = []
    for round_ in range(2):
        project = projects[round_]
        for i, (component, old, new, purpose, why) in enumerate(CHOICES):
            older, newer = _contradiction(component, old, new, purpose, why, i + round_ * 3)
            pairs.append(LabelledPair("contradiction", project, older, newer))
    for round_ in range(2):
        project = projects[1 + round_]
        for i, (setting, where, old, new, why) in enumerate(SETTINGS):
            older, newer = _superseded(setting, where, old, new, why, i + round_)
            pairs.append(LabelledPair("superseded_config", project, older, newer))
    for round_, project in enumerate((projects[2], "internal-tools")):
        for i, (component, old, _new, purpose, _why) in enumerate(CHOICES):
            detail = REFINEMENTS[(i + 3 * round_) % len(REFINEMENTS)]
            older, newer = _refinement(component, old, purpose, detail)
            pairs.append(LabelledPair("refinement", project, older, newer))
    for round_ in range(3):
        for (title_a, body_a), (title_b, body_b) in LOOKALIKES:
            project = projects[round_]
            pairs.append(
                LabelledPair(
                    "lookalike",
                    project,
                    Memory(title_a, body_a, "bugfix"),
                    Memory(title_b, body_b, "bugfix"),
                )
            )
    rng.shuffle(pairs)
    return pairs
