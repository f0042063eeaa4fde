"""Clean code (or Markdown) out of a chat answer.

Models wrap code in Markdown fences and add prose ("Here is the simplified code:")
even when told not to. The prompt asks for exactly one fenced block; this module
takes the largest fenced block when there is one (an unterminated fence runs to the
end: the answer may have been cut off), otherwise drops prose paragraphs at the start
and end. Whatever prose survives is caught later by the parse check.
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$")
_PROSE_OPENER = re.compile(
    r"^(?:here(?:'s| is| are)|sure|certainly|of course|okay|ok|below|i(?:'ve| have| "
    r"made| changed| simplified| added| fixed| rewrote)|the (?:following|rewritten|"
    r"simplified|updated|fixed|corrected|refactored|modified|new)|this (?:is|version)|"
    r"explanation|changes|note)\b", re.I)
_CODE_CHARS = re.compile(r"[;{}=]|\)\s*$|^\s*[#@]|^\s*//|^\s*/\*")


def fenced_blocks(text: str) -> list[str]:
    """Contents of every fenced block, in order (an unterminated one runs to the end)."""
    blocks: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence = match.group(1)
        body: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            body.append(lines[i])
            i += 1
        blocks.append("\n".join(body))
        i += 1
    return blocks


def looks_like_prose(line: str) -> bool:
    """A sentence, not code: starts with a word, has several words, ends like prose."""
    s = line.strip()
    if not s or _CODE_CHARS.search(s):
        return False
    if _PROSE_OPENER.match(s):
        return True
    words = s.split()
    return (len(words) >= 4 and s[0].isupper() and s[-1] in ".:!"
            and sum(w.isalpha() for w in words) >= len(words) * 0.6)


def _paragraphs(lines: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


def strip_prose(text: str) -> str:
    """Drop leading and trailing paragraphs that are prose, keep the code between."""
    lines = text.split("\n")
    # leading: prose lines before the first code line
    start = 0
    while start < len(lines) and (not lines[start].strip() or looks_like_prose(lines[start])):
        start += 1
    if start == len(lines):
        return text.strip("\n")  # all prose-looking: leave it for validation to judge
    end = len(lines)
    # trailing: whole paragraphs of prose after a blank line
    while True:
        while end > start and not lines[end - 1].strip():
            end -= 1
        blank = next((k for k in range(end - 1, start, -1) if not lines[k].strip()), None)
        if blank is None:
            break
        tail = [line for line in lines[blank + 1:end] if line.strip()]
        if tail and all(looks_like_prose(line) for line in tail):
            end = blank
            continue
        break
    return "\n".join(lines[start:end]).strip("\n")


def extract_code(answer: str) -> str:
    """The code in a chat answer, without fences or commentary ("" when none)."""
    text = answer.replace("\r\n", "\n").replace("\r", "\n")
    blocks = [b for b in fenced_blocks(text) if b.strip()]
    if blocks:
        return max(blocks, key=len).strip("\n")
    return strip_prose(text)


def extract_markdown(answer: str) -> str:
    """An explanation answer as Markdown; unwraps an answer fenced as ```markdown."""
    text = answer.replace("\r\n", "\n").strip()
    lines = text.split("\n")
    if len(lines) >= 2:
        match = _FENCE_OPEN.match(lines[0])
        if match and match.group(2).lower() in ("markdown", "md") and \
                lines[-1].strip() == match.group(1):
            return "\n".join(lines[1:-1]).strip()
    return text
