"""Java (session 9): the supertypes a class header is missing, guessed from the
package's similar siblings."""

from __future__ import annotations

from pathlib import Path

from flashls.context import ranking
from flashls.context.evidence_java_pkg import HEADER_SCORE, in_class_header
from flashls.context.neighbors import neighbor_files
from tests.test_context_javacpp_s7 import _open


def _channel(name: str, header: str) -> str:
    return (f"package p;\n\npublic abstract class {name}\n    extends AbstractChan\n"
            f"{header}"
            "{\n    protected abstract long read(Buffer[] dsts) throws ClosedException;\n"
            "    public Chan provider() {\n        return null;\n    }\n}\n")


TREE = {
    "p/Chan.java": "package p;\n\npublic interface Chan {\n    void close();\n}\n",
    "p/AbstractChan.java": "package p;\n\npublic abstract class AbstractChan implements Chan {\n}\n",
    "p/Buffer.java": "package p;\n\npublic class Buffer {\n    int limit;\n}\n",
    "p/ClosedException.java": "package p;\n\npublic class ClosedException extends Exception {\n}\n",
    "p/ScatteringChan.java": "package p;\n\npublic interface ScatteringChan extends Chan {\n"
                             "    long read(Buffer[] dsts) throws ClosedException;\n}\n",
    "p/FileChan.java": _channel("FileChan", "    implements ScatteringChan\n"),
    "p/DatagramChan.java": _channel("DatagramChan", "    implements ScatteringChan\n"),
    # the file being written: its `implements` line is the one missing (row 4)
    "p/SocketChan.java": _channel("SocketChan", "\n"),
}


def test_java_a_supertype_similar_siblings_implement_is_read_and_lifted_in_the_header(tmp_path):
    # java.nio.channels: SocketChannel's `implements ByteChannel, ScatteringByteChannel,
    # GatheringByteChannel, NetworkChannel` names its interfaces nowhere else in the
    # file; DatagramChannel, FileChannel and Pipe's channels implement them too
    ws, path, spec, a = _open(tmp_path, TREE, "p/SocketChan.java")
    files = neighbor_files(spec, str(path), a, ws, {})
    read = {Path(f.path).name: f for f in files}
    assert "ScatteringChan.java" in read and read["ScatteringChan.java"].supertype > 0

    def header_score(cursor: int) -> float:
        cands, _ = ranking.rank(a, str(path), cursor, (cursor, cursor), files, spec.resolver)
        return max(c.score for c in cands if c.file >= 0 and
                   Path(files[c.file].path).name == "ScatteringChan.java" and
                   files[c.file].analysis.items[c.item].name == "ScatteringChan")

    in_header, in_body = header_score(4), header_score(8)
    assert in_header >= HEADER_SCORE
    assert in_body < in_header  # elsewhere it is only a guess at its share


def test_java_in_class_header_reads_the_lines_above_the_cursor():
    lines = ["/** A channel. */", "public abstract class SocketChannel",
             "    extends AbstractSelectableChannel", "", "{", "    int x;", ""]
    assert in_class_header(lines, 3)  # below `extends ...`, before the body's `{`
    assert in_class_header(lines, 2)  # below `class SocketChannel`
    assert not in_class_header(lines, 6)  # inside the body
    assert not in_class_header(["class A {", ""], 1)  # the header is closed
    assert not in_class_header(["/**", " * the class Foo", " */", ""], 3)  # a comment


def test_java_a_one_class_file_is_no_barrel(tmp_path):
    # `class ClosedChannelException extends IOException {}` has one definition: read as
    # a barrel, its "imports" (the whole package) filled every free neighbor slot in
    # directory order, each one analysed for nothing but fill
    tree = {
        "p/Closed.java": "package p;\n\npublic class Closed extends Exception {\n}\n",
        "p/Aaa.java": "package p;\n\nclass Aaa {\n    int a() {\n        return 1;\n    }\n}\n",
        "p/Bbb.java": "package p;\n\nclass Bbb {\n    int b() {\n        return 2;\n    }\n}\n",
        "p/User.java": "package p;\n\nclass User {\n    void run() throws Closed {\n"
                       "        throw new Closed();\n    }\n}\n",
    }
    ws, path, spec, a = _open(tmp_path, tree, "p/User.java")
    read = {Path(f.path).name for f in neighbor_files(spec, str(path), a, ws, {})}
    assert read == {"Closed.java"}
