"""Session 11: the Java and C/C++ passes' memos give what a fresh computation gives."""

from __future__ import annotations

from flashls.context import brief_c, evidence_c, evidence_java, evidence_java_pkg, receivers_c
from flashls.context.neighbors import neighbor_files
from flashls.context.outline import Item
from flashls.context.ranking import Candidate
from tests.test_context_java_s9 import TREE
from tests.test_context_javacpp_s7 import _open

BRIEFS = [
    ("module", "detail", ["namespace detail {"], ["} // namespace detail"]),
    ("function", "write", ["template <typename Char>", "void write(Char c)", "{"], ["}"]),
    ("struct", "is_spec", ["template <typename T>", "struct is_spec : std::bool_constant<",
                           "    A || B> {"], ["};"]),
    ("class", "Foo", ["class Bar {"], ["};"]),  # no line names it: unchanged
    ("macro", "X", ["#define X(a) \\", "  a + 1"], []),
]


def test_c_brief_forms_are_remembered_and_equal_a_fresh_shortening():
    brief_c._shorten_c.cache_clear()
    for kind, name, head, tail in BRIEFS:
        fresh = brief_c._shortened(kind, name, list(head), list(tail))
        first = brief_c.shorten("c", kind, name, head, tail)
        first[0].append("mutated by a caller")  # each call hands out its own lists
        assert brief_c.shorten("c", kind, name, head, tail) == fresh
    assert brief_c._shorten_c.cache_info().hits == len(BRIEFS)
    assert brief_c.shorten("python", "class", "Foo", ["class Foo:"], []) == (["class Foo:"], [])


def test_c_base_names_are_read_as_before_with_and_without_a_colon():
    heads = [("buffer", ["class buffer final : public detail::buffer_base<T> {"], ["buffer_base"]),
             ("basic_memory_buffer", ["class basic_memory_buffer final",
                                      "    : public detail::buffer<T>,", "      private Alloc {"],
              ["buffer", "Alloc"]),
             ("node", ["struct node {"], []), ("node", ["struct ns::node {"], []),
             ("xml_node", ["template <class Ch>", "class xml_node: public xml_base<Ch>"],
              ["xml_base"]),
             ("absent", ["struct other : base {"], [])]
    receivers_c._bases_in.cache_clear()
    for name, head, bases in heads:
        assert receivers_c._base_names(name, head) == bases
        assert receivers_c._base_names(name, head) == bases  # remembered: the same
    assert receivers_c._bases_in.cache_info().hits == len(heads)


def test_c_keyword_names_walk_nothing_without_a_keyword_entry():
    class A:  # an analysis with items
        def __init__(self, names):
            self.items = tuple(Item(n, "function", 1, i, i, (n,), (), -1, 1)
                               for i, n in enumerate(names))

    class F:
        def __init__(self, names):
            self.analysis = A(names)

    class Spec:
        resolver = "c"

    current = A(["main"])
    current.spec = Spec()
    cands = [Candidate(50.0, 0, 0), Candidate(40.0, 0, 1), Candidate(30.0, -1, 0)]
    assert evidence_c.keyword_names(cands, current, [F(["a", "b"])]) is cands
    out = evidence_c.keyword_names(cands, current, [F(["a", "struct"])])
    assert [c.score for c in out] == [50.0, 40.0 * evidence_c.KEYWORD_FACTOR, 30.0]


def test_java_guesses_are_kept_for_the_same_types_and_package_file_versions(tmp_path, monkeypatch):
    ws, path, spec, a = _open(tmp_path, TREE, "p/SocketChan.java")
    files = neighbor_files(spec, str(path), a, ws, {})
    resolved = sorted(str(tmp_path / p) for p in TREE if p != "p/SocketChan.java")
    named = [f.path for f in files if not f.guess and not f.supertype]
    evidence_java_pkg._LAST[0] = None
    fresh = evidence_java_pkg.guesses(str(path), a, resolved, named, ws, 8)
    assert fresh  # ScatteringChan, the supertype its siblings implement
    computed = []
    real = evidence_java_pkg._guessed
    monkeypatch.setattr(evidence_java_pkg, "_guessed",
                        lambda *args: computed.append(1) or real(*args))
    assert evidence_java_pkg.guesses(str(path), a, resolved, named, ws, 8) == fresh
    assert not computed  # the same inputs: the last answer
    assert evidence_java_pkg.guesses(str(path), a, resolved, named, ws, 1) == fresh[:1]
    assert len(computed) == 1  # another room
    words = evidence_java_pkg.file_words  # a package file's new version: new words objects
    monkeypatch.setattr(evidence_java_pkg, "file_words",
                        lambda f, w: None if (r := words(f, w)) is None else (r[0], r[1]))
    assert evidence_java_pkg.guesses(str(path), a, resolved, named, ws, 1) == fresh[:1]
    assert len(computed) == 2


def test_java_type_name_and_import_words():
    assert evidence_java.type_name("/src/p/ServerConfig.java") == "ServerConfig"
    assert evidence_java._line_words("import java.util.concurrent.locks.ReentrantLock;") == (
        "import", "java", "util", "concurrent", "locks", "ReentrantLock")


def test_c_sibling_listing_checks_the_rules_only_as_far_as_it_is_read(tmp_path, monkeypatch):
    from flashls.context import siblings_c
    from flashls.context.workspace import Workspace
    from flashls.settings import DEFAULT_EXCLUDE
    for k in range(40):
        (tmp_path / f"f{k:02}.h").write_text(f"int f{k}(void);\n")
    (tmp_path / "notes.txt").write_text("x")
    ws = Workspace([str(tmp_path)], DEFAULT_EXCLUDE)
    whole = ws.list_dir(str(tmp_path), siblings_c.C_EXTENSIONS)
    checked = []
    allowed = ws.allowed
    monkeypatch.setattr(ws, "allowed", lambda p: checked.append(p) or allowed(p))
    siblings_c._LISTINGS.clear()
    first = list(zip(range(5), siblings_c._listing(str(tmp_path), ws)))
    assert [f for _, f in first] == whole[:5] and len(checked) == 5
    assert list(siblings_c._listing(str(tmp_path), ws)) == whole  # the rest, in order
    assert len(checked) == 40  # each file's rules once
    found = siblings_c.sibling_idents(str(tmp_path / "f00.h"), ws)
    assert [p for p, _ in found] == [ws.real(f) for f in whole[1:siblings_c.SIBLING_FILES + 1]]


def test_java_package_words_equal_the_look_behind_regexes():
    import random
    rng = random.Random(11)
    pieces = ["A", "Bc", "a", "x.", ".", "$", "_", " ", "\n", "extends ", "implements ",
              "extends", "{", "(", ";", "=", ",", "<", ">", "É", "é", "1", "Foo", "fooBar"]
    texts = ["class A extends B implements C, D<E> {", "myextends implements Foo {",
             "Aextends B", "x.Foo Bar$Baz _Q 1Z", "extends extends A", ""]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
              for _ in range(3000)]
    pkg = evidence_java_pkg
    for text in texts:
        assert pkg.type_words(text) == frozenset(pkg._TYPE_WORD.findall(text)), text
        assert pkg.supertypes(text) == frozenset(
            w for span in pkg._SUPERS.findall(text) for w in pkg._TYPE_WORD.findall(span)), text


def _adjust_reference(cands, analysis, files, ev):
    """Session 10's `evidence_java.adjust` with STATIC_MEMBER off: every candidate's
    item read."""
    unused = evidence_java._unused_imports(analysis, ev)
    private = [evidence_java.private_members(f.analysis.items) for f in files]
    out = []
    for c in cands:
        if c.file >= 0:
            item = files[c.file].analysis.items[c.item]
            if c.item in private[c.file]:
                c = c.rescored(c.score * evidence_java.PRIVATE_FACTOR)
            elif item.parent == -1 and item.name in unused and \
                    c.score < evidence_java.UNUSED_IMPORT_SCORE and \
                    evidence_java.type_name(files[c.file].path) == item.name:
                c = c.rescored(evidence_java.UNUSED_IMPORT_SCORE)
        out.append(c)
    return out


def test_java_adjust_by_set_lookups_equals_reading_every_item(tmp_path):
    from types import SimpleNamespace
    tree = {"p/Main.java": "package p;\n\nimport q.Helper;\nimport q.Used;\n\n"
                           "public class Main {\n    Used u;\n}\n",
            "q/Helper.java": "package q;\n\npublic class Helper {\n    private int n;\n"
                             "    public int get() { return n; }\n    private void reset() {}\n}\n",
            "q/Used.java": "package q;\n\npublic class Used {\n    private int k;\n}\n"}
    ws, path, spec, a = _open(tmp_path, tree, "p/Main.java")
    files = neighbor_files(spec, str(path), a, ws, {})
    assert {f.path.rsplit("/", 1)[-1] for f in files} == {"Helper.java", "Used.java"}
    cands = [Candidate(float(s), f, k) for f, nf in enumerate(files)
             for k in range(len(nf.analysis.items)) for s in (30, 90)]
    cands += [Candidate(40.0, -1, k) for k in range(len(a.items))]
    for uses in ({}, {"Used": SimpleNamespace(distance=3)}):
        ev = SimpleNamespace(uses=uses)
        got = evidence_java.adjust(cands, a, files, ev, "java")
        assert got == _adjust_reference(cands, a, files, ev)
        assert any(g.score != c.score for g, c in zip(got, cands))
