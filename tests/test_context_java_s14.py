"""Java: an unused neighbor method whose parameter names are all the enclosing
method's own parameters is lifted to a floor (`evidence_java_params`): a delegating
call passes its parameters on by name (`ZipCoder.get(charset)` inside
`ZipOutputStream(OutputStream out, Charset charset)`). Not lifted: a match on a field
near the cursor (`t` in `get(ExchangeImpl t)`), a name with several matching
overloads (`read(b, off, len)`), a name the file already uses."""

from __future__ import annotations

from dataclasses import dataclass, field

from flashls.context import evidence_java_params as ejp
from flashls.context.outline import Item
from flashls.context.ranking import Candidate
from tests.files import write
from tests.test_context_go_rust import score, scores


@dataclass
class _Analysis:
    items: tuple


@dataclass
class _File:
    analysis: _Analysis


@dataclass
class _Ev:
    anchor: tuple[int, int]
    uses: dict = field(default_factory=dict)


def _method(name: str, line: str) -> Item:
    return Item(name, "method", 2, 0, 1, (line,), (), -1, 10)


CURRENT = (
    "public class ZipOutputStream {",
    "    private final ExchangeImpl t;",
    "    public ZipOutputStream(OutputStream out, Charset charset) {",
    "        super(out);",
    "        this.zc = ",
    "    }",
    "    public int read(byte[] b, int off, int len) {",
    "        return in.",
    "    }",
)
CTOR = (2, 5)  # the anchor: the constructor around the cursor
READ = (6, 8)


def _lift(items_per_file, ev, near=None):
    files = [_File(_Analysis(tuple(items))) for items in items_per_file]
    cands = [Candidate(10.0, f, i) for f, items in enumerate(items_per_file)
             for i in range(len(items))]
    out = ejp.lift_params(cands, files, ev, near or {"t": 1, "charset": 1, "out": 2},
                          CURRENT)
    return {files[c.file].analysis.items[c.item].lines[0].strip(): c.score for c in out}


def test_param_names_of_a_declaration_line():
    assert ejp.param_names("static <T> int f(List<Map<K, V>> xs, int... n) {") == ("xs", "n")
    assert ejp.param_names("void close() {") == ()


def test_a_method_taking_the_enclosing_parameters_is_lifted():
    got = _lift([[_method("get", "public static ZipCoder get(Charset charset) {")]],
                _Ev(CTOR))
    assert got["public static ZipCoder get(Charset charset) {"] == ejp.PARAM_SCORE


def test_a_field_near_the_cursor_is_no_parameter(monkeypatch):
    items = [[_method("get", "static ExchangeImpl get (ExchangeImpl t) {")]]
    assert _lift(items, _Ev(CTOR))["static ExchangeImpl get (ExchangeImpl t) {"] == 10.0
    monkeypatch.setattr(ejp, "OWN_SCOPE", False)  # any identifier near the cursor
    assert _lift(items, _Ev(CTOR))["static ExchangeImpl get (ExchangeImpl t) {"] == 50.0


def test_several_matching_overloads_lift_none(monkeypatch):
    items = [[_method("read", "public int read(byte[] b, int off, int len) {")],
             [_method("read", "int read(char[] b, int off, int len) {")]]
    assert set(_lift(items, _Ev(READ)).values()) == {10.0}
    monkeypatch.setattr(ejp, "OVERLOADS", False)
    assert set(_lift(items, _Ev(READ)).values()) == {ejp.PARAM_SCORE}


def test_one_matching_overload_among_several_is_lifted():
    items = [[_method("isLeap", "public boolean isLeap() {"),
              _method("isLeap", "public static boolean isLeap(Charset charset) {")]]
    got = _lift(items, _Ev(CTOR))
    assert got["public static boolean isLeap(Charset charset) {"] == ejp.PARAM_SCORE
    assert got["public boolean isLeap() {"] == 10.0


def test_a_name_the_file_uses_is_not_lifted():
    items = [[_method("get", "public static ZipCoder get(Charset charset) {")]]
    assert set(_lift(items, _Ev(CTOR, {"get": []})).values()) == {10.0}


# -- end to end: a workspace ranked by `ranking.rank` ------------------------------------

YEAR = ("package demo.time;\n\npublic final class Year {\n"
        "    public static boolean isLeap(long year) {\n"
        "        return ((year & 3) == 0) && ((year % 100) != 0 || (year % 400) == 0);\n    }\n\n"
        "    public static Year now() {\n        return new Year();\n    }\n\n"
        "    public int length(int unit) {\n        return 365;\n    }\n}\n")
MONTH_DAY = ("package demo.time;\n\npublic final class MonthDay {\n"
             "    private final int month;\n    private final int day;\n\n"
             "    public MonthDay(int month, int day) {\n        this.month = month;\n"
             "        this.day = day;\n    }\n\n"
             "    public Year firstYear() {\n        return null;\n    }\n\n"
             "    public boolean isValidYear(int year) {\n"
             "        return !(day == 29 && month == 2 && !LEAP_MARK);\n    }\n}\n")


def _year_scores(root) -> dict[str, float]:
    """Scores of Year.java's methods, the cursor in MonthDay.isValidYear(int year)."""
    write(root, {"src/demo/time/Year.java": YEAR, "src/demo/time/MonthDay.java": MONTH_DAY})
    table = scores(root, "src/demo/time/MonthDay.java", "        return !(day")
    return {name: score(table, "src/demo/time/Year.java", f"public {head}")
            for name, head in (("isLeap", "static boolean isLeap"), ("now", "static Year now"),
                               ("length", "int length"))}


def test_delegated_parameter_lifts_the_neighbor_method_end_to_end(tmp_path):
    got = _year_scores(tmp_path)
    assert got["isLeap"] >= ejp.PARAM_SCORE > max(got["now"], got["length"])


def test_without_the_floor_the_delegate_ties_with_its_class_mates(tmp_path, monkeypatch):
    monkeypatch.setattr(ejp, "PARAM_SCORE", 0.0)
    got = _year_scores(tmp_path)
    assert got["isLeap"] <= max(got["now"], got["length"])
