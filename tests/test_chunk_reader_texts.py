"""A tree parsed through `ChunkReader` reads its node texts back through it.

The idle reparse keeps the tree its sliced parse made (no reparse from bytes), so
`node.text` goes through the read callback. py-tree-sitter 0.26 reads a node's text
from what the callback returns as bytes; the reused memoryview the parse itself gets
(so that its leaked references cost nothing) crashed the process there. Run in a child
process so that a crash shows as a failure, not as a dead test session."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    from flashls.context.background import idle_reparse_steps
    from tests.test_idle_reparse import _prepared_doc
    from tests.test_bigfiles import _edit
    pdoc = _prepared_doc()
    _edit(pdoc, 700, 0, "def renamed_here(a, b):\\n    return a\\n")
    steps = sum(1 for _ in idle_reparse_steps(pdoc, slice_s=0.0))
    assert steps >= 2 and not pdoc.syntax.dirty, "the sliced reparse did not run"
    root = pdoc.syntax.tree.root_node
    source = pdoc.doc.text.encode()
    name = root.named_descendant_for_point_range((700, 4), (700, 8))
    for node in (name, root.children[0], root.children[-1]):
        assert node.text == source[node.start_byte:node.end_byte], node
    assert root.text == source  # longer than one chunk
    print(name.text.decode())
""")


def test_node_texts_of_a_tree_kept_from_a_sliced_reparse_read_back_whole():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["renamed_here"]
