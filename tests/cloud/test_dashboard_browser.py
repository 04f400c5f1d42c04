"""The dashboard in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright;
nothing downloads a browser). Each step checks the page and saves a screenshot under the test's
temp dir; every request any page makes must go to the dashboard's own origin."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.cloud.conftest import StartServer
from tests.cloud.dashboard_world import World, build_world

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is missing: run scripts/install-system-deps (Debian's chromium)")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def world(start_server: StartServer, database_url: str) -> World:
    return build_world(start_server, database_url, ENGRAM_TIMEZONE="America/New_York")


class Tab:
    """One browser page on the dashboard, recording every request's origin."""

    def __init__(self, browser: Browser, world: World, shots: Path, **context: object) -> None:
        self.context = browser.new_context(**context)  # type: ignore[arg-type]
        self.page: Page = self.context.new_page()
        self.base = world.server.url
        self.origins: set[str] = set()
        self.errors: list[str] = []
        self.shots = shots
        self.count = 0
        self.page.on("request", lambda r: self.origins.add(_origin(r.url)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    def go(self, path: str) -> Page:
        self.page.goto(self.base + path)
        return self.page

    def shot(self, name: str) -> Path:
        self.count += 1
        path = self.shots / f"{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000
        return path

    def sign_in(self, token: str) -> None:
        self.go("/dashboard/login")
        self.page.fill("#token", token)
        self.page.click("button[type=submit]")
        expect(self.page.locator("h1")).to_have_text("Overview")

    def only_own_origin(self) -> None:
        own = _origin(self.base)
        assert self.origins <= {own}, self.origins
        assert not [e for e in self.errors if "Content Security Policy" in e], self.errors


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = tmp_path / "screenshots"
    folder.mkdir()
    return folder


def test_admin_journey_login_browse_search_and_htmx(
    browser: Browser, world: World, shots: Path
) -> None:
    tab = Tab(browser, world, shots)
    page = tab.go("/dashboard/")
    expect(page.locator("h1")).to_have_text("Sign in")
    tab.shot("login")
    tab.sign_in(world.admin_token)
    expect(page.locator(".tiles")).to_contain_text("observations")
    expect(page.locator("svg.chart")).to_be_visible()
    expect(page.locator("footer")).to_contain_text("America/New_York")
    tab.shot("overview")

    tab.go("/dashboard/browser")
    expect(page.locator("#entity-list")).to_contain_text("Use Postgres for the event store")
    page.fill("#q", "canary")
    page.press("#q", "Enter")
    expect(page.locator("#entity-list")).to_contain_text("staging canary")
    expect(page.locator("#entity-list")).not_to_contain_text("event store")
    assert "q=canary" in page.url  # HTMX pushed the search into the address bar
    tab.shot("search")

    page.click("text=Deploys go through the staging canary")
    expect(page.locator("h1")).to_have_text("Deploys go through the staging canary")
    expect(page.locator(".facts")).to_contain_text("alpha")
    tab.shot("observation")

    tab.go("/dashboard/projects/alpha")
    expect(page.locator("#entity-list")).to_contain_text("Rate limit the login endpoint")
    page.click("nav.tabs >> text=Prompts")  # an HTMX partial swap, no page load
    expect(page.locator("#entity-list")).to_contain_text("add rate limiting to login")
    expect(page.locator("h1")).to_contain_text("alpha")
    tab.shot("project-prompts-partial")

    for path, heading in (
        ("/dashboard/stats", "Stats"),
        ("/dashboard/activity", "Activity"),
        ("/dashboard/contributors", "Contributors"),
        ("/dashboard/browser/sessions", "Browser"),
    ):
        tab.go(path)
        expect(page.locator("h1")).to_have_text(heading)
        tab.shot(heading.lower())
    tab.only_own_origin()


def test_admin_manages_users_tokens_grants_and_pauses(
    browser: Browser, world: World, shots: Path
) -> None:
    tab = Tab(browser, world, shots)
    tab.sign_in(world.admin_token)
    page = tab.go("/dashboard/admin/users")
    page.fill("#username", "grace")
    page.fill("#display_name", "Grace H")
    page.select_option("#role", "member")
    page.get_by_role("button", name="Create user").click()
    expect(page.locator("h1")).to_contain_text("Grace H")
    user_path = urlsplit(page.url).path
    tab.shot("user-created")

    page.fill("#token-name", "grace-laptop")
    page.get_by_role("button", name="Issue token").click()
    raw = page.locator("#raw-token").inner_text().strip()
    assert raw.startswith("egc_")
    tab.shot("token-once")
    tab.go(user_path)
    expect(page.locator("#raw-token")).to_have_count(0)  # shown once, never again
    assert raw not in page.content()

    page.fill("#grant-project", "alpha")
    page.get_by_role("button", name="Grant", exact=True).click()
    expect(page.locator("section.card", has_text="Project grants")).to_contain_text("alpha")
    tab.shot("granted")
    assert (
        world.client(raw).get("/sync/mutations/pull", params={"project": "alpha"}).status_code
        == 200
    )

    page.click("button[aria-label^='Revoke token']")
    expect(page.locator("section.card", has_text="Tokens")).to_contain_text("revoked")
    tab.shot("token-revoked")
    assert (
        world.client(raw).get("/sync/mutations/pull", params={"project": "alpha"}).status_code
        == 401
    )

    tab.go("/dashboard/admin/projects")
    page.click("button[aria-label='Pause sync of alpha']")  # HTMX swaps just this form
    expect(page.locator("form#sync-alpha")).to_contain_text("Paused")
    tab.shot("paused")
    tab.go("/dashboard/projects")
    expect(page.locator("#project-list li", has_text="alpha")).to_contain_text("Paused")
    refused = world.client(world.admin_token).post(
        "/sync/mutations/push", json={"project": "alpha", "entries": []}
    )
    assert refused.status_code in (400, 409, 423)
    tab.go("/dashboard/admin/audit-log")
    expect(page.locator("#audit-list")).to_contain_text("dashboard.login")
    tab.shot("audit")
    tab.only_own_origin()


def test_member_cannot_reach_admin_and_a_revoked_token_ends_the_session(
    browser: Browser, world: World, shots: Path
) -> None:
    member = Tab(browser, world, shots)
    member.sign_in(world.member_token)
    page = member.page
    expect(page.locator("nav[aria-label=Main]")).not_to_contain_text("Admin")
    member.go("/dashboard/admin/users")
    expect(page.locator("h1")).to_have_text("403")
    member.shot("member-403")
    member.go("/dashboard/browser")
    expect(page.locator("#entity-list")).not_to_contain_text("Vault")

    admin = Tab(browser, world, shots)
    admin.sign_in(world.admin_token)
    admin.go(f"/dashboard/admin/users/{world.member_id}")
    admin.page.click("button[aria-label^='Revoke token']")
    expect(admin.page.locator("section.card", has_text="Tokens")).to_contain_text("revoked")

    member.go("/dashboard/")
    expect(page.locator("h1")).to_have_text("Sign in")
    member.shot("member-signed-out")
    member.only_own_origin()
    admin.only_own_origin()


def test_phone_layout_and_keyboard(browser: Browser, world: World, shots: Path) -> None:
    tab = Tab(browser, world, shots, viewport={"width": 390, "height": 844}, is_mobile=True)
    tab.sign_in(world.admin_token)
    page = tab.go("/dashboard/browser")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400  # nothing forces sideways scrolling on a phone
    tab.shot("phone-browser")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.className")
    assert focused == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    tab.only_own_origin()
