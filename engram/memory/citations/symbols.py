"""Which names a source file defines: a plain-text scan per language family, no parser.

:func:`definitions` maps each defined name to its kind (``function``, ``class``, ``constant``).
A language family is chosen by file extension; a file of no known family defines every
identifier it contains (a citation of it then only asks that the name still appears).
"""

from __future__ import annotations

import os
import re

from engram.memory.citations.status import CLASS, CONSTANT, FUNCTION

_C_TYPES = r"(?:struct|class|enum|union|namespace|interface|record|trait|object|protocol)"
# (pattern, kind) per family; every pattern has one group: the defined name.
_FAMILIES: dict[str, tuple[tuple[str, str], ...]] = {
    "python": (
        (r"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)", FUNCTION),
        (r"^[ \t]*class[ \t]+([A-Za-z_]\w*)", CLASS),
        (r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", CONSTANT),
    ),
    "javascript": (
        (r"\bfunction\b[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)", FUNCTION),
        (r"\b(?:class|interface|enum|namespace)[ \t]+([A-Za-z_$][\w$]*)", CLASS),
        (r"\btype[ \t]+([A-Za-z_$][\w$]*)[ \t]*(?:<[^>\n]{0,200}>)?[ \t]*=", CLASS),
        (r"\b(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)", CONSTANT),
        (
            r"^[ \t]*(?:(?:public|private|protected|static|async|readonly|get|set|override)"
            r"[ \t]+)*([A-Za-z_$][\w$]*)[ \t]*(?:<[^>\n]*>)?\([^)\n]*\)[^;\n]*\{",
            FUNCTION,
        ),
    ),
    "go": (
        (r"^func[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_]\w*)", FUNCTION),
        (r"^[ \t]*type[ \t]+([A-Za-z_]\w*)", CLASS),
        (r"^[ \t]*(?:const|var)[ \t]+([A-Za-z_]\w*)", CONSTANT),
        (r"^[ \t]+([A-Za-z_]\w*)(?:[ \t]+[\w.*\[\]]+)?[ \t]*=", CONSTANT),
    ),
    "rust": (
        (r"\bfn[ \t]+([A-Za-z_]\w*)", FUNCTION),
        (r"\b(?:struct|enum|trait|union|type|mod)[ \t]+([A-Za-z_]\w*)", CLASS),
        (r"\b(?:const|static)[ \t]+(?:mut[ \t]+)?([A-Za-z_]\w*)", CONSTANT),
        (r"\bmacro_rules![ \t]*([A-Za-z_]\w*)", FUNCTION),
    ),
    "jvm": (  # Java, Kotlin, Scala, C#, Swift, Dart
        (rf"\b{_C_TYPES}[ \t]+([A-Za-z_]\w*)", CLASS),
        (
            r"\b(?:fun|func|def)[ \t]+(?:<[^>\n]{0,200}>[ \t]*)?(?:[\w.]{1,200}\.)?([A-Za-z_]\w*)",
            FUNCTION,
        ),
        (r"\b(?:val|var|let|const)[ \t]+([A-Za-z_]\w*)", CONSTANT),
        (r"\bstatic[ \t]+final[ \t]+[\w<>\[\], ]{1,200}?[ \t]([A-Za-z_]\w*)[ \t]*=", CONSTANT),
        (
            r"^[ \t]*(?:[\w<>\[\],?@]+[ \t]+)+([A-Za-z_]\w*)[ \t]*\([^;{}\n]*\)[^;\n]*\{?[ \t]*$",
            FUNCTION,
        ),
    ),
    "c": (
        (r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", CONSTANT),
        (rf"\b{_C_TYPES}[ \t]+([A-Za-z_]\w*)", CLASS),
        # single-line patterns only: a run across lines would rescan the file per match
        (r"\btypedef\b[^;\n]{0,200}?\b([A-Za-z_]\w*)[ \t]*;", CLASS),
        (r"^\}[ \t]*([A-Za-z_]\w*)[ \t]*;", CLASS),  # the name closing a typedef struct
        (r"^[A-Za-z_][\w \t\*&:<>,]*?[ \t\*&:]([A-Za-z_]\w*)[ \t]*\([^;\n]*$", FUNCTION),
        (
            r"^[ \t]*(?:static[ \t]+)?const(?:expr)?[ \t]+[\w:<> \t\*]+?([A-Za-z_]\w*)[ \t]*=",
            CONSTANT,
        ),
    ),
    "ruby": (
        (r"^[ \t]*def[ \t]+(?:self\.)?([A-Za-z_]\w*[?!=]?)", FUNCTION),
        (r"^[ \t]*(?:class|module)[ \t]+(?:[A-Z]\w*::)*([A-Z]\w*)", CLASS),
        (r"^[ \t]*([A-Z][A-Za-z0-9_]*)[ \t]*=(?!=)", CONSTANT),
    ),
    "php": (
        (r"\bfunction[ \t]+&?([A-Za-z_]\w*)", FUNCTION),
        (r"\b(?:class|interface|trait|enum)[ \t]+([A-Za-z_]\w*)", CLASS),
        (r"\bconst[ \t]+([A-Za-z_]\w*)", CONSTANT),
        (r"\bdefine\([ \t]*['\"]([A-Za-z_]\w*)", CONSTANT),
    ),
    "shell": (
        (r"^[ \t]*(?:function[ \t]+)?([A-Za-z_][\w-]*)[ \t]*\(\)", FUNCTION),
        (r"^[ \t]*function[ \t]+([A-Za-z_][\w-]*)", FUNCTION),
        (
            r"^[ \t]*(?:export[ \t]+|readonly[ \t]+|declare[ \t]+(?:-\w+[ \t]+)?)?"
            r"([A-Za-z_]\w*)=",
            CONSTANT,
        ),
    ),
}
_EXTENSIONS = {
    "python": (".py", ".pyi", ".pyx"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue"),
    "go": (".go",),
    "rust": (".rs",),
    "jvm": (".java", ".kt", ".kts", ".scala", ".cs", ".swift", ".dart", ".groovy"),
    "c": (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm"),
    "ruby": (".rb", ".rake"),
    "php": (".php",),
    "shell": (".sh", ".bash", ".zsh", ".ksh"),
}
_FAMILY_OF = {ext: family for family, exts in _EXTENSIONS.items() for ext in exts}
_COMPILED: dict[str, list[tuple[re.Pattern[str], str]]] = {}
MAX_NAMES = 20_000  # names kept of a file of no known family (bounded cache rows)
_WORD = re.compile(r"[A-Za-z_][\w$]*")


def family_of(path: str) -> str | None:
    """The language family of ``path`` by its extension, or None for any other file."""
    return _FAMILY_OF.get(os.path.splitext(path)[1].lower())


def definitions(path: str, text: str) -> dict[str, str]:
    """The names ``text`` (the file ``path``) defines, each with its kind; first kind wins."""
    family = family_of(path)
    if family is None:
        words: dict[str, str] = {}
        for match in _WORD.finditer(text):
            words.setdefault(match.group(0), CONSTANT)
            if len(words) >= MAX_NAMES:
                break
        return words
    found: dict[str, str] = {}
    for pattern, kind in _patterns(family):
        for match in pattern.finditer(text):
            found.setdefault(match.group(1), kind)
    return found


def _patterns(family: str) -> list[tuple[re.Pattern[str], str]]:
    compiled = _COMPILED.get(family)
    if compiled is None:
        compiled = [(re.compile(p, re.MULTILINE), k) for p, k in _FAMILIES[family]]
        _COMPILED[family] = compiled
    return compiled
