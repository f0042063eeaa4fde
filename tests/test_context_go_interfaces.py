"""Go receivers typed through an interface or a documented struct
(`flashls/context/evidence_go.py`).

A Go package often exports an interface and implements it with one unexported struct
(`FieldError` and `*fieldError`): a call `fe.Tag()` on `fe FieldError` runs the
struct's `Tag`, which must not be ranked as a namesake of another type. And a struct's
fields type the variables read from them whether or not the struct has a doc comment
above it. Each test compares the method the code reaches with a namesake of another
type; without the evidence the two tie and the test fails."""

from __future__ import annotations

from tests.files import write
from tests.test_context_go_rust import GO_MOD, score, scores


def test_go_call_on_an_interface_value_reaches_its_one_implementation(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "errors.go": "package shop\n\n// FieldError describes a failed check.\n"
                     "type FieldError interface {\n\t// Tag is the failed tag.\n"
                     "\tTag() string\n\tField() string\n}\n\n"
                     "// fieldError is the one FieldError.\n"
                     "type fieldError struct{ tag string }\n\n"
                     "func (fe *fieldError) Tag() string { return fe.tag }\n\n"
                     "func (fe *fieldError) Field() string { return \"\" }\n",
        "label.go": "package shop\n\ntype label struct{}\n\n"
                    "func (l label) Tag() string { return \"\" }\n",
        "use.go": "package shop\n\nfunc message(fe FieldError) string {\n"
                  "\tmsg := \"bad: \"\n\treturn msg + fe.Tag()\n}\n",
    })
    table = scores(tmp_path, "use.go", "msg := ")
    # ranked as a typed member, far above the namesake (they were a few points apart)
    assert score(table, "errors.go", "func (fe *fieldError) Tag()") > \
        2 * score(table, "label.go", "func (l label) Tag()")


def test_go_call_on_an_interface_value_shares_out_among_implementations(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "fs.go": "package shop\n\ntype Fs interface {\n\tName() string\n}\n\n"
                 "type memFs struct{}\n\n"
                 "func (m memFs) Name() string { return \"mem\" }\n\n"
                 "type osFs struct{}\n\nfunc (o osFs) Name() string { return \"os\" }\n",
        "errors.go": "package shop\n\ntype Named interface {\n\tName() string\n\tID() int\n}\n\n"
                     "type user struct{}\n\nfunc (u *user) Name() string { return \"\" }\n\n"
                     "func (u *user) ID() int { return 0 }\n",
        "use.go": "package shop\n\nfunc both(fs Fs, n Named) string {\n"
                  "\tout := fs.Name()\n\treturn out + n.Name()\n}\n",
    })
    table = scores(tmp_path, "use.go", "out := ")
    # `n Named` has one implementation, `fs Fs` two: theirs share the typed score
    one = score(table, "errors.go", "func (u *user) Name()")
    assert one > 2 * score(table, "fs.go", "func (m memFs) Name()")
    assert one > 2 * score(table, "fs.go", "func (o osFs) Name()")


def test_go_documented_struct_field_types_a_chained_receiver(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "builder.go": "package shop\n\ntype list struct{}\n\n"
                      "func (l *list) Push(x int) {}\n\n"
                      "type builder struct{}\n\nfunc (b *builder) Push(x int) {}\n",
        "decoder.go": "package shop\n\n// decoder reads a document.\n// It keeps a builder.\n"
                      "type decoder struct {\n\tb *builder\n\tdepth int\n}\n",
        "use.go": "package shop\n\nfunc (d *decoder) add(x int) {\n"
                  "\td.b.Push(x)\n}\n",
    })
    table = scores(tmp_path, "use.go", "d.b.Push(x)")
    assert score(table, "builder.go", "func (b *builder) Push(") > \
        score(table, "builder.go", "func (l *list) Push(")


def test_go_type_assertion_types_its_variable(tmp_path):
    write(tmp_path, {
        "go.mod": GO_MOD,
        "fs.go": "package shop\n\ntype Fs interface {\n\tName() string\n}\n\n"
                 "type basePath struct{}\n\nfunc (b *basePath) Name() string { return \"\" }\n\n"
                 "func (b *basePath) RealPath() string { return \"\" }\n\n"
                 "func NewBase() Fs { return &basePath{} }\n",
        "mirror.go": "package shop\n\ntype mirror struct{}\n\n"
                     "func (m mirror) Name() string { return \"\" }\n\n"
                     "func (m mirror) RealPath() string { return \"\" }\n",
        "use.go": "package shop\n\nfunc real() string {\n\tbp := NewBase().(*basePath)\n"
                  "\treturn bp.RealPath()\n}\n",
    })
    table = scores(tmp_path, "use.go", "bp := NewBase()")
    # `bp` is a basePath (not just an Fs, whose two implementations both have one)
    assert score(table, "fs.go", "func (b *basePath) RealPath()") > \
        2 * score(table, "mirror.go", "func (m mirror) RealPath()")
