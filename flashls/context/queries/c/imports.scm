; @import is the directive, @path the quoted header (system <...> headers are not resolved).
(preproc_include path: (string_literal (string_content) @path)) @import
