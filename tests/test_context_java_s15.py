"""Java, session 15: a method's twin in a sibling class names what its body calls
(`evidence_java_twin`), and a variable the file uses but never declares is typed by
the package type its name starts (`evidence_java_field`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from flashls.context import evidence_java_field as ejf
from flashls.context import evidence_java_twin as ejt
from flashls.context.analysis import analyze
from flashls.context.evidence_java import order_neighbors
from flashls.context.languages import language_for
from flashls.context.ranking import Candidate


@dataclass
class _File:
    path: str
    analysis: object


@dataclass
class _Ev:
    uses: dict = field(default_factory=dict)


def _analysis(path: str, text: str):
    return analyze(language_for("", path), text, ("test-s15", path, text))


def _lifted(cands, files) -> dict[str, float]:
    return {files[c.file].analysis.items[c.item].name: c.score for c in cands}


DOUBLE_PIPELINE = """package p;

abstract class DoublePipeline<E_IN> extends AbstractPipeline<E_IN> {
    final Node<Double> evaluateToNode(PipelineHelper<Double> helper,
                                      Spliterator<P_IN> spliterator,
                                      boolean flattenTree) {

    }

    final Node<Double> other(int n) {
        return null;
    }
}
"""
CURSOR = 6  # the blank body line of `evaluateToNode`

INT_PIPELINE = """package p;

abstract class IntPipeline<E_IN> extends AbstractPipeline<E_IN> {
    final Node<Integer> evaluateToNode(PipelineHelper<Integer> helper,
                                       Spliterator<P_IN> spliterator,
                                       boolean flattenTree) {
        return Nodes.collectInt(helper, spliterator, flattenTree);
    }
}
"""

NODES = """package p;

final class Nodes {
    static Node.OfInt collectInt(PipelineHelper<Integer> helper, Spliterator<P_IN> s, boolean f) {
        return null;
    }
    static Node.OfDouble collectDouble(PipelineHelper<Double> helper, Spliterator<P_IN> s, boolean f) {
        return null;
    }
    static void flatten(Node<?> node) {
    }
}
"""


def _pipeline_files():
    return [_File("p/IntPipeline.java", _analysis("p/IntPipeline.java", INT_PIPELINE)),
            _File("p/Nodes.java", _analysis("p/Nodes.java", NODES))]


def _nodes_lifted(current: str = DOUBLE_PIPELINE, cursor: int = CURSOR):
    files = _pipeline_files()
    cands = [Candidate(10.0, 1, i) for i, it in enumerate(files[1].analysis.items)
             if it.kind == "method"]
    out = ejt.lift_twins(cands, _analysis("p/DoublePipeline.java", current), files, _Ev(),
                         cursor)
    return _lifted(out, files)


def test_words_swap_and_replace():
    assert ejt.words("IntPipeline") == ("Int", "Pipeline")
    assert ejt.swap("IntPipeline", "DoublePipeline") == ("Int", "Double")
    assert ejt.swap("LocalDate", "LocalDateTime") is None
    assert ejt.replaced("collectInt", ("Int", "Double")) == "collectDouble"
    assert ejt.replaced("longBuilder", ("Long", "Int")) == "intBuilder"


def test_a_twin_in_a_sibling_class_names_the_call_with_its_class_word_swapped():
    got = _nodes_lifted()
    assert got["collectDouble"] == ejt.TWIN_SCORE  # `collectInt` read as `collectDouble`
    assert got["collectInt"] == ejt.TWIN_SCORE  # named as it is, too
    assert got["flatten"] == 10.0  # the twin does not name it


def test_no_twin_outside_a_method_or_with_another_parameter_count():
    assert _nodes_lifted(cursor=2)["collectDouble"] == 10.0  # the package line
    other = DOUBLE_PIPELINE.replace("boolean flattenTree) {", "boolean flattenTree, int n) {")
    assert _nodes_lifted(other)["collectDouble"] == 10.0


NESTED = """package p;

final class VarHandleDoubles {
    static class FieldInstanceReadOnly extends VarHandle {
        @Override
        final MethodType accessModeTypeUncached(AccessType at) {

        }
    }

    static final class FieldStaticReadOnly extends VarHandle {
        @Override
        final MethodType accessModeTypeUncached(AccessType at) {
            return at.accessModeType(double.class);
        }
    }
}
"""

VAR_HANDLE = """package p;

abstract class VarHandle {
    final MethodType accessModeType(AccessMode accessMode) {
        return null;
    }
    final MethodType toMethodHandle(AccessMode accessMode) {
        return null;
    }
}
"""


def test_a_nested_class_method_has_its_twin_in_another_nested_class(monkeypatch):
    files = [_File("p/VarHandle.java", _analysis("p/VarHandle.java", VAR_HANDLE))]
    cands = [Candidate(10.0, 0, i) for i, it in enumerate(files[0].analysis.items)
             if it.kind == "method"]
    current = _analysis("p/VarHandleDoubles.java", NESTED)
    got = _lifted(ejt.lift_twins(cands, current, files, _Ev(), 6), files)
    assert got == {"accessModeType": ejt.TWIN_SCORE, "toMethodHandle": 10.0}
    monkeypatch.setattr(ejt, "NESTED", False)
    got = _lifted(ejt.lift_twins(cands, current, files, _Ev(), 6), files)
    assert got["accessModeType"] == 10.0


GZIP = """package p;

public class GZIPOutputStream extends DeflaterOutputStream {

    public GZIPOutputStream(OutputStream out, int size) {
        super(out, size);
        crc.reset();
    }

    public synchronized void write(byte[] buf, int off, int len) {
        super.write(buf, off, len);
        crc.update(buf, off, len);
    }
}
"""
CRC32 = """package p;

public class CRC32 implements Checksum {
    public void update(byte[] b, int off, int len) {
    }
}
"""
CRC32C = """package p;

public final class CRC32C implements Checksum {
    public void update(byte[] b, int off, int len) {
    }
}
"""


def test_an_undeclared_receiver_is_typed_by_the_shortest_package_type_it_starts():
    current = _analysis("p/GZIPOutputStream.java", GZIP)
    assert ejf._undeclared(current, "crc")
    assert not ejf._undeclared(current, "buf")  # a parameter
    assert ejf.field_types(current, ["CRC32", "CRC32C", "Deflater"]) == {"CRC32": "crc"}
    files = ["p/CRC32.java", "p/CRC32C.java", "p/Inflater.java"]
    assert order_neighbors(current, files) == ["p/CRC32.java"]  # read though never named


def test_the_typed_header_is_lifted_at_the_class_level_only(monkeypatch):
    current = _analysis("p/GZIPOutputStream.java", GZIP)
    files = [_File("p/CRC32.java", _analysis("p/CRC32.java", CRC32)),
             _File("p/CRC32C.java", _analysis("p/CRC32C.java", CRC32C))]
    cands = [Candidate(10.0, f, i) for f, nf in enumerate(files)
             for i, it in enumerate(nf.analysis.items) if it.kind == "class"]

    def scores(at_class_level):
        out = ejf.lift_headers(cands, current, files, at_class_level)
        return [(files[c.file].analysis.items[c.item].name, c.score) for c in out]

    assert scores(True) == [("CRC32", ejf.FIELD_SCORE), ("CRC32C", 10.0)]
    assert scores(False) == [("CRC32", 10.0), ("CRC32C", 10.0)]
    monkeypatch.setattr(ejf, "FIELD_SCORE", 0.0)
    assert scores(True) == [("CRC32", 10.0), ("CRC32C", 10.0)]
    assert order_neighbors(current, ["p/CRC32.java"]) == []


SER = """package p;

final class Ser {
    static final byte LOCAL_DATE_TYPE = 3;
    static final byte YEAR_TYPE = 11;
    static final byte OTHER_TYPE = 12;
}
"""
LOCAL_DATE = """package p;

public final class LocalDate {
    private Object writeReplace() {
        return new Ser(Ser.LOCAL_DATE_TYPE, this);
    }
}
"""
YEAR = """package p;

public final class Year {
    private Object writeReplace() {

    }
}
"""


def test_a_same_named_method_of_any_class_names_what_is_built_on_its_class_name(
        monkeypatch):
    assert ejt.renamed("LOCAL_DATE_TYPE", ("Local", "Date"), ("Year",)) == "YEAR_TYPE"
    assert ejt.renamed("toLocalDate", ("Local", "Date"), ("Year",)) == "toYear"
    files = [_File("p/LocalDate.java", _analysis("p/LocalDate.java", LOCAL_DATE)),
             _File("p/Ser.java", _analysis("p/Ser.java", SER))]
    cands = [Candidate(10.0, 1, i) for i, it in enumerate(files[1].analysis.items)
             if it.kind != "class"]
    current = _analysis("p/Year.java", YEAR)
    got = _lifted(ejt.lift_twins(cands, current, files, _Ev(), 4), files)
    # the twin's own names are not lifted: its class shares no word with `Year`
    assert got == {"LOCAL_DATE_TYPE": 10.0, "YEAR_TYPE": ejt.TWIN_SCORE, "OTHER_TYPE": 10.0}
    monkeypatch.setattr(ejt, "RENAMED", False)
    got = _lifted(ejt.lift_twins(cands, current, files, _Ev(), 4), files)
    assert got["YEAR_TYPE"] == 10.0
