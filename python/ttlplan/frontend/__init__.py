"""ttlplan's reader of tt-lang Python kernels (issue 29; docs/tt-lang-python-notes.md)."""
