"""A small bracket / string / comment scanner for suggestion fragments.

A suggestion is a fragment: it starts inside whatever the cursor is in and may close
brackets that were opened before the cursor. Tree-sitter cannot parse a fragment on its
own, so this scanner tracks just enough state (open brackets, the string or comment we
are in) to tell which brackets a suggestion opened, which ones it closed "from outside",
and where in the fragment it is back at the cursor's own nesting level.
"""

from __future__ import annotations

from dataclasses import dataclass

from flashls.context.languages import LanguageSpec

OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {close: open_ for open_, close in OPENERS.items()}
QUOTE_CHARS = "\"'`"


@dataclass(frozen=True)
class Lexicon:
    """The few lexical facts the scanner needs about a language."""

    quotes: tuple[str, ...] = ('"',)  # longest first
    line_comment: str | None = None
    block_comment: tuple[str, str] | None = None

    @classmethod
    def for_spec(cls, spec: LanguageSpec | None) -> "Lexicon":
        """Lexicon of a known language; unknown text gets brackets and double quotes only."""
        if spec is None:
            return cls()
        quotes = tuple(sorted(spec.quotes, key=len, reverse=True))
        return cls(quotes, spec.line_comment or None, spec.block_comment)


@dataclass(frozen=True)
class ScanState:
    """Where the scanner is: open brackets (opener, index in the text), string, comment."""

    stack: tuple[tuple[str, int], ...] = ()
    quote: str | None = None  # delimiter of the string we are inside
    comment: str | None = None  # "line" or "block"
    closed_outside: int = 0  # closers/string ends that closed something opened before the text

    def same_level(self, start: "ScanState") -> bool:
        """Back at the nesting level the fragment started at, with nothing closed from outside."""
        return (not self.stack and self.quote == start.quote
                and self.comment == start.comment and self.closed_outside == 0)

    @property
    def in_code(self) -> bool:
        return self.quote is None and self.comment is None


def scan(text: str, lex: Lexicon, start: ScanState = ScanState()) -> list[ScanState]:
    """State before each character of `text`, plus the final state (len(text) + 1 items).

    Positions inside a multi-character token (`\"\"\"`, `/*`) share the token's start state.
    Unknown start brackets are not tracked: `start.stack` is ignored, since positions in
    the fragment are what callers care about.
    """
    states: list[ScanState] = []
    _scan(text, lex, start, states)
    return states


def final_state(text: str, lex: Lexicon, start: ScanState = ScanState()) -> ScanState:
    """`scan(...)[-1]` without a state per character: callers that only need the end
    (the cursor's line and block, on every request) scan at a fraction of the cost."""
    return _scan(text, lex, start, None)


def _scan(text: str, lex: Lexicon, start: ScanState,
          states: list[ScanState] | None) -> ScanState:
    """The scanner; appends the state before each character to `states` when given."""
    stack: list[tuple[str, int]] = []
    quote, comment = start.quote, start.comment
    outside = 0
    quote_from_outside = quote is not None
    line_comment = lex.line_comment
    block_open = lex.block_comment[0] if lex.block_comment else None
    block_close = lex.block_comment[1] if lex.block_comment else "*/"
    quotes = lex.quotes
    # first characters of every token that starts something: any other character in
    # code is a bracket or nothing, decided without `startswith`
    starters = frozenset(t[0] for t in (*quotes, line_comment or "", block_open or "") if t)
    i, n = 0, len(text)
    while i < n:
        if states is not None:
            state = ScanState(tuple(stack), quote, comment, outside)
        ch = text[i]
        step = 1
        if comment == "line":
            if ch == "\n":
                comment = None
        elif comment == "block":
            if text.startswith(block_close, i):
                comment, step = None, len(block_close)
        elif quote is not None:
            if ch == "\\" and quote != "`":
                step = 2
            elif text.startswith(quote, i):
                if quote_from_outside:
                    outside += 1
                quote, quote_from_outside, step = None, False, len(quote)
            elif ch == "\n" and len(quote) == 1 and quote != "`":
                quote, quote_from_outside = None, False  # unterminated: it ends with the line
        elif ch in starters and line_comment and text.startswith(line_comment, i):
            comment, step = "line", len(line_comment)
        elif ch in starters and block_open and text.startswith(block_open, i):
            comment, step = "block", len(block_open)
        elif ch in starters and (q := next((q for q in quotes if text.startswith(q, i)),
                                           None)) is not None:
            quote, quote_from_outside, step = q, False, len(q)
        elif ch in OPENERS:
            stack.append((ch, i))
        elif ch in CLOSERS:
            if stack:
                stack.pop()  # a mismatched closer still closes the innermost bracket
            else:
                outside += 1
        step = min(step, n - i)
        if states is not None:
            states.extend([state] * step)
        i += step
    final = ScanState(tuple(stack), quote, comment, outside)
    if states is not None:
        states.append(final)
    return final


def unmatched_closers(text: str, lex: Lexicon) -> int:
    """How many closing brackets in `text` close nothing (a whole-document balance check)."""
    return final_state(text, lex).closed_outside


def is_closers_only(text: str) -> bool:
    """Only closing brackets, quotes and the punctuation that follows them (`)`, `"]);`)."""
    stripped = text.strip()
    return bool(stripped) and all(ch in ")]}" + QUOTE_CHARS + ";,: " for ch in stripped) \
        and any(ch in ")]}" + QUOTE_CHARS for ch in stripped)
