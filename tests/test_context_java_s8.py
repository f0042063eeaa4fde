"""Java (session 8): method chains continued on the next line, and the package files
a file does not name yet."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.neighbors import neighbor_files
from tests.test_context_javacpp_s7 import _open


def _scores(tmp_path: Path, tree: dict[str, str], user_path: str, cursor: int
            ) -> dict[tuple[str, str], float]:
    """(file name, entry name) -> its best score."""
    ws, path, spec, a = _open(tmp_path, tree, user_path)
    files = neighbor_files(spec, str(path), a, ws, {})
    cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files, spec.resolver)
    out: dict[tuple[str, str], float] = {}
    for c in cands:
        if c.file >= 0:
            key = (Path(files[c.file].path).name, files[c.file].analysis.items[c.item].name)
            out[key] = max(out.get(key, 0.0), c.score)
    return out


BUILDER = ("package p;\n\npublic final class Builder {\n"
           "    public Builder appendValue(int field) {\n        return this;\n    }\n"
           "    public Builder appendLiteral(char c) {\n        return this;\n    }\n"
           "    public Builder optionalStart() {\n        return this;\n    }\n"
           "    public Formatter toFormatter() {\n        return null;\n    }\n}\n")


def test_java_a_chain_continued_on_the_next_line_calls_members(tmp_path):
    # java.time's DateTimeFormatter builds its constants as
    #   new DateTimeFormatterBuilder()
    #       .appendValue(YEAR, 4)
    #       .appendLiteral('-')
    # a line that starts with `.name(` calls a member as surely as `x.name(` does
    user = ("package p;\n\npublic final class Formatter {\n"
            "    static final Formatter ISO = new Builder()\n"
            "            .appendValue(1)\n"
            "            .appendLiteral('-')\n"
            "            .toFormatter();\n"
            "    int size() {\n        return 0;\n    }\n}\n")
    tree = {"p/Builder.java": BUILDER, "p/Formatter.java": user}
    scores = _scores(tmp_path, tree, "p/Formatter.java", 8)
    assert scores[("Builder.java", "appendValue")] > 30
    assert scores[("Builder.java", "appendLiteral")] > 30
    assert scores[("Builder.java", "appendValue")] > 4 * scores[("Builder.java", "optionalStart")]


def _stream(name: str, uses_event: bool) -> str:
    event = "        WriteFinishedEvent e = new WriteFinishedEvent(t);\n" if uses_event else ""
    return (f"package p;\n\nclass {name} extends FilterOutputStream {{\n"
            f"    private final ExchangeImpl t;\n"
            f"    public void close() {{\n        LeftOverInputStream is = t.getOriginalInputStream();\n"
            f"        Event.flush(t);\n{event}    }}\n}}\n")


def test_java_a_package_type_the_similar_siblings_use_is_read_and_lifted(tmp_path):
    # jdk.httpserver: FixedLengthOutputStream names WriteFinishedEvent only on the
    # line being written; ChunkedOutputStream and UndefLengthOutputStream, which use
    # what it uses, both create one
    tree = {
        "p/ExchangeImpl.java": "package p;\n\nclass ExchangeImpl {\n"
                               "    LeftOverInputStream getOriginalInputStream() {\n"
                               "        return null;\n    }\n}\n",
        "p/LeftOverInputStream.java": "package p;\n\nclass LeftOverInputStream {\n"
                                      "    void drain() {\n    }\n}\n",
        "p/Event.java": "package p;\n\nclass Event {\n    static void flush(ExchangeImpl t) {\n    }\n}\n",
        "p/WriteFinishedEvent.java": "package p;\n\nclass WriteFinishedEvent extends Event {\n"
                                     "    WriteFinishedEvent(ExchangeImpl t) {\n    }\n}\n",
        "p/Unrelated.java": "package p;\n\nclass Unrelated {\n    Helper h;\n}\n",
        "p/Helper.java": "package p;\n\nclass Helper {\n    int x;\n}\n",
        "p/ChunkedOutputStream.java": _stream("ChunkedOutputStream", True),
        "p/UndefLengthOutputStream.java": _stream("UndefLengthOutputStream", True),
        "p/FixedLengthOutputStream.java": _stream("FixedLengthOutputStream", False)
        .replace("        Event.flush(t);\n", "        Event.flush(t);\n        \n"),
    }
    ws, path, spec, a = _open(tmp_path, tree, "p/FixedLengthOutputStream.java")
    files = neighbor_files(spec, str(path), a, ws, {})
    read = {Path(f.path).name: f for f in files}
    assert "WriteFinishedEvent.java" in read
    assert "Helper.java" not in read and "Unrelated.java" not in read
    scores = _scores(tmp_path, tree, "p/FixedLengthOutputStream.java", 8)
    assert scores[("WriteFinishedEvent.java", "WriteFinishedEvent")] >= 40
