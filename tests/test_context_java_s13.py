"""Java: a short class whose named files leave the room half empty reads more of its
package (`evidence_java_fill`), ranked after everything else (`evidence_java.adjust`).

`fixtures/java_fill/p/`: Adler32 names only `Checksum`; its sibling CRC32, which also
implements Checksum, calls `ZipUtils.loadLibrary()` in its static block, where the
cursor in Adler32 sits."""

from __future__ import annotations

from pathlib import Path

from flashls.context import evidence_java, evidence_java_fill
from flashls.context.analysis import analyze
from flashls.context.assemble import assemble_context
from flashls.context.document import Document
from flashls.context.languages import language_for
from flashls.context.neighbors import neighbor_files
from flashls.context.ranking import Candidate
from flashls.context.syntax import ParsedDocument
from flashls.context.workspace import Workspace
from flashls.settings import DEFAULT_EXCLUDE

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "java_fill"
ADLER = ROOT / "p" / "Adler32.java"


def _request(path: Path = ADLER) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    cursor = text.index("    static {\n") + len("    static {\n        ")
    pdoc = ParsedDocument.open(Document(path.as_uri(), text, "java", 1), str(path))
    ctx = assemble_context(pdoc.snapshot(), cursor, budget_tokens=2048,
                           workspace=Workspace([str(ROOT)], DEFAULT_EXCLUDE))
    return str(ctx), text


def _neighbors():
    spec = language_for("java", str(ADLER))
    text = ADLER.read_text(encoding="utf-8")
    symbols = analyze(spec, text, ("test-fill", str(ADLER)))
    ws = Workspace([str(ROOT)], DEFAULT_EXCLUDE)
    return symbols, neighbor_files(spec, str(ADLER), symbols, ws, {})


def test_a_package_file_a_sibling_names_is_read_when_room_is_left():
    _, files = _neighbors()
    by_name = {Path(f.path).name: f for f in files}
    assert "Checksum.java" in by_name and by_name["Checksum.java"].rank < evidence_java.ROOM_RANK
    assert "ZipUtils.java" in by_name, "CRC32 names it: read for the room left"
    assert by_name["ZipUtils.java"].rank >= evidence_java.ROOM_RANK


def test_no_file_is_read_for_room_once_the_demand_is_met(monkeypatch):
    monkeypatch.setattr(evidence_java_fill, "FILL_DEMAND", 0)
    _, files = _neighbors()
    assert [Path(f.path).name for f in files] == ["Checksum.java"]


def test_the_request_carries_the_sibling_named_helper():
    assert "loadLibrary" in _request()[0]


def test_entries_of_files_read_for_room_rank_after_the_others():
    symbols, files = _neighbors()
    named = next(i for i, f in enumerate(files) if f.path.endswith("Checksum.java"))
    filled = next(i for i, f in enumerate(files) if f.path.endswith("ZipUtils.java"))
    cands = [Candidate(50.0, named, 0), Candidate(50.0, filled, 0)]

    class NoEvidence:
        uses: dict = {}
        bound: frozenset = frozenset()

    out = evidence_java.adjust(cands, symbols, files, NoEvidence(), "java")
    assert out[0].score == 50.0
    assert out[1].score < 0.8, "below an entry nothing points at (a superclass's read())"
    assert evidence_java.adjust(cands, symbols, files, NoEvidence(), "python") == cands
