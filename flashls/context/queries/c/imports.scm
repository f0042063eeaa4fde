; @import is the directive, @path the header: quoted, or <angled> (resolved only when the
; workspace has it: a library's own `<lib/x.h>`; system headers are never there).
(preproc_include path: (string_literal (string_content) @path)) @import
(preproc_include path: (system_lib_string) @path) @import
