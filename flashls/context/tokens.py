"""A local token estimate for budgeting, with no tokenizer download.

Code is split into pieces a BPE tokenizer treats alike (camel-case humps, digit runs,
punctuation runs, spaces, newlines) and each kind of piece is weighted by how many
tokens it costs on average. The weights were fitted by least squares against the
DeepSeek-V4 tokenizer on ~550 KB of Python, JS/TS, Go, Rust, Java and C/C++ (40-line
chunks): the estimate / real ratio has mean 1.02, p5 0.94, p95 1.09 (plain chars/3.5:
mean 1.08, p5 0.83, p95 1.41). See docs/how-it-works/context.md for the numbers.

The estimate is additive over newline-terminated lines (no piece spans a line break),
so the cost of whole-line entries can be summed without re-counting the joined text.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from .memo import LINE_MEMO_SIZE, TEXT_MEMO_SIZE

_SPACE_RUN = re.compile(r"[ \t]+")
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_DIGITS = re.compile(r"\d+")
_PUNCT = re.compile(r"[!-/:-@\[-`{-~]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]|[\x00-\x08\x0b-\x1f\x7f\r]")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\r]")
_CAPS = re.compile(r"[A-Z]{4,}(?![a-z])")  # an all-caps hump of _WORD, 4+ letters
_MID_TAB = re.compile(r"(?<=\S)\t+")  # tabs that align columns (not indentation)
_SPACE_DIGIT = re.compile(r"[ \t]\d")  # a space before a digit is a token of its own

# Fitted weights (rounded): tokens per piece of each kind.
_W_NEWLINE = 0.65  # "\n" plus the next line's indentation is usually one token
_W_SPACE_RUN = 0.25  # a space mostly merges into the following word
_W_WORD = 0.70  # common words are one token, with a leading space merged
_W_LONG_WORD_CHAR = 0.08  # per character past 6 in one camel-case hump
_W_DIGIT_GROUP = 1.2  # digits are split in groups of up to three
_W_PUNCT_CHAR = 0.15
_W_PUNCT_RUN = 1.05
_W_NON_ASCII_CHAR = 1.0  # CJK and friends: about one token per character
# Shapes the weights above underestimate most (measured against the DeepSeek-V4
# tokenizer on the lines of the real-code benchmark corpora, all six languages; the
# residual fitted with the weights above fixed, rounded up): rare all-caps words are
# split into 2-3 letter tokens (`TOML_CLANG`: T OM L _CL ANG), a tab run between
# columns is a token, and so is a space before a digit (`= 1`: ' ', '1').
_W_CAPS_CHAR = 0.15
_W_CAPS_HUMP = 0.7
_W_MID_TAB_RUN = 1.2
_W_SPACE_DIGIT = 0.75


Counts = tuple[int, int, int, int, int, int, int, int, int, int, int, int]


def _counts(text: str) -> Counts:
    """Integer piece counts of `text`: newlines, space runs, words, long-word extra
    characters, punctuation runs, punctuation characters, digit groups, non-ASCII or
    control characters, all-caps hump characters and humps, column tab runs, spaces
    before a digit. Pieces never span a newline, so the counts of a text are the
    sums of the counts of its newline-terminated lines."""
    words = _WORD.findall(text)
    punct = _PUNCT.findall(text)
    digits = _DIGITS.findall(text)
    other = len(_NON_ASCII.findall(text)) if not text.isascii() or _CTRL.search(text) else 0
    caps = _CAPS.findall(text)
    return (text.count("\n"), len(_SPACE_RUN.findall(text)), len(words),
            sum(len(w) - 6 for w in words if len(w) > 6), len(punct), sum(map(len, punct)),
            sum((len(d) + 2) // 3 for d in digits) if digits else 0, other,
            sum(map(len, caps)) if caps else 0, len(caps),
            len(_MID_TAB.findall(text)) if "\t" in text else 0,
            len(_SPACE_DIGIT.findall(text)) if digits else 0)


_line_counts = lru_cache(maxsize=LINE_MEMO_SIZE)(_counts)
SPLIT_CHARS = 512  # longer texts are counted line by line, each line memoized


def _total(c: Counts) -> int:
    (nl, spaces, words, long_extra, punct_runs, punct_chars, digit_groups, other,
     caps_chars, caps, mid_tabs, space_digits) = c
    total = (_W_NEWLINE * nl
             + _W_SPACE_RUN * spaces
             + _W_WORD * words + _W_LONG_WORD_CHAR * long_extra
             + _W_PUNCT_RUN * punct_runs + _W_PUNCT_CHAR * punct_chars)
    if digit_groups:
        total += _W_DIGIT_GROUP * digit_groups
    if other:
        total += _W_NON_ASCII_CHAR * other
    if caps:
        total += _W_CAPS_CHAR * caps_chars + _W_CAPS_HUMP * caps
    if mid_tabs or space_digits:
        total += _W_MID_TAB_RUN * mid_tabs + _W_SPACE_DIGIT * space_digits
    return max(1, math.ceil(total - 1e-9))  # no float dust: 2.0000000001 is 2


MEMO_MAX_CHARS = 1 << 16  # whole texts up to this size are memoized (TEXT_MEMO_SIZE of them)


@lru_cache(maxsize=TEXT_MEMO_SIZE)
def _estimate_memo(text: str) -> int:
    return _estimate_lines(text)


def _estimate_lines(text: str) -> int:
    # the same integer counts as one scan of the whole text (pieces never span a
    # newline), so the float arithmetic and the result are identical
    sums = [sum(column) for column in zip(*map(_line_counts, text.split("\n")))]
    sums[0] = text.count("\n")
    return _total(tuple(sums))


def estimate_tokens(text: str) -> int:
    """Estimated DeepSeek tokens in `text` (0 for the empty string).

    Each kind of piece is counted by its own C-level regex scan; the pieces are
    disjoint (newline, space run, camel-case hump, digit run, punctuation run, other).
    Long texts are counted per line (memoized: unchanged lines cost a lookup), and
    whole long texts are memoized too (stable prompt parts repeat per keystroke)."""
    if not text:
        return 0
    if len(text) > SPLIT_CHARS:
        return _estimate_memo(text) if len(text) <= MEMO_MAX_CHARS else _estimate_lines(text)
    return _total(_counts(text))


def fit_lines(lines: list[str], budget: int) -> int:
    """How many of `lines` (from the start, each newline-terminated) fit `budget`."""
    used = 0
    for count, line in enumerate(lines):
        used += estimate_tokens(line + "\n")
        if used > budget:
            return count
    return len(lines)
