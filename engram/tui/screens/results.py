"""Search Results: a page of matches, best first, with relation notes under each."""

from __future__ import annotations

from typing import Any

from engram.memory.browse import Page, search_page
from engram.tui.observations import ObservationListScreen


class SearchResultsScreen(ObservationListScreen):
    """The results of one search."""

    CSS_PATH = "lists.tcss"

    def __init__(self, query: str) -> None:
        super().__init__()
        self.search_text = query
        self.title_text = f"Results for “{query}”"

    def fetch_page(self, offset: int) -> Page[Any]:
        app = self.engram
        return search_page(
            app.store, self.search_text, project=app.project, offset=offset, now=app.now
        )
