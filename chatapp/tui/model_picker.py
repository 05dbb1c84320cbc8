"""Choose the model: the one in the config, `offline`, and what the api_base lists (fetched in a
thread with a short timeout; when that fails, one line says why and the rest can still be chosen).

Enter uses the model from the next message on; S also saves it (with the api_base) to the config.
The screen returns (model, save) or None when closed with Esc.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from chatapp.llm.model_list import ModelListError, list_models
from chatapp.terminal_text import plain_text

OFFLINE = "offline"


class ModelPicker(ModalScreen[tuple[str, bool] | None]):
    DEFAULT_CSS = """
    ModelPicker { align: center middle; }
    ModelPicker > Vertical { width: 72; height: auto; max-height: 80%; border: round $accent; background: $surface;
                             padding: 0 1; }
    ModelPicker OptionList { height: auto; max-height: 20; }
    ModelPicker .picker-note { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Close"),
        Binding("s", "choose(True)", "Use and save"),
    ]

    def __init__(self, current: str, configured: str, api_base: str | None):
        super().__init__()
        self.current, self.configured, self.api_base = current, configured, api_base
        self.listed: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Model — Enter uses it, S uses it and saves it to the config", classes="sidebar-title")
            yield OptionList(id="models")
            yield Static(self._waiting_note(), id="model-note", classes="picker-note")
        yield Footer()

    def _waiting_note(self) -> str:
        if not self.api_base:
            return "No api_base set (chatapp chat --api-base URL, or api_base in config.toml): nothing to list."
        return f"Listing the models at {self.api_base} …"

    def on_mount(self) -> None:
        self._fill()
        if self.api_base:
            self.fetch_models()

    def _names(self) -> list[str]:
        return list(dict.fromkeys([self.current, self.configured, OFFLINE, *self.listed]))

    def _fill(self) -> None:
        options = self.query_one("#models", OptionList)
        highlighted = options.highlighted_option.id if options.highlighted_option else self.current
        options.clear_options()
        for name in self._names():
            notes = [label for label, same in (("now", self.current), ("config", self.configured)) if name == same]
            shown = plain_text(name)
            if notes:
                shown.append(f"  ({', '.join(notes)})", style="dim")
            options.add_option(Option(shown, id=name))
        options.highlighted = self._names().index(highlighted) if highlighted in self._names() else 0
        options.focus()

    @work(thread=True, exclusive=True, group="models")
    def fetch_models(self) -> None:
        try:
            names = list_models(self.api_base, self.current)
        except ModelListError as exc:
            self.app.call_from_thread(self._listed, [], f"Could not list models: {exc}")
            return
        self.app.call_from_thread(self._listed, names, f"{len(names)} models at {self.api_base}")

    def _listed(self, names: list[str], note: str) -> None:
        self.listed = names
        self.query_one("#model-note", Static).update(plain_text(note))
        self._fill()

    @on(OptionList.OptionSelected, "#models")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss((event.option.id, False))

    def action_choose(self, save: bool) -> None:
        option = self.query_one("#models", OptionList).highlighted_option
        if option is not None:
            self.dismiss((option.id, save))
