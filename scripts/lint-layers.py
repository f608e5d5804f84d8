#!/usr/bin/env python3
"""The house rules that rustfmt and clippy cannot see (ARCHITECTURE.md, "Rules that keep
themselves"): which file may import which, how long a file may grow, where `unsafe` may stand,
and where wire text lives. Prints one line per violation — `path:line: rule: what` — and exits
1 if there is any.

  scripts/lint-layers.py [ROOT]     check the tree at ROOT (default: the repository)
  scripts/lint-layers.py --self-test  plant one violation of each rule in a copy of the tree and
                                      check that each is reported, and that the tree is clean

Families are not listed here: a wing is any folder under src/core/ or src/commands/, or any
file under src/glue/types/, so a new family is checked without an edit.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# Line budgets. "code" counts the lines before a file's first `#[cfg(test)]`.
BUDGETS = [
    # (rule, path prefix, shared files only, counted, limit)
    ("size-shared-commands", "src/commands/", True, "code", 150),
    ("size-glue", "src/glue/", False, "code", 300),
    ("size-source", "src/", False, "all", 600),
    ("size-tests", "tests/", False, "all", 800),
    ("size-fuzz", "fuzz/src/", False, "all", 800),
]

# Attributes that must stand at the top of a file.
REQUIRED = [
    ("src/lib.rs", "#![deny(unsafe_code)]"),
    ("src/core/mod.rs", "#![forbid(unsafe_code)]"),
    ("src/commands/mod.rs", "#![forbid(unsafe_code)]"),
    ("src/glue/mod.rs", "#![deny(unsafe_op_in_unsafe_fn)]"),
    ("src/glue/mod.rs", "#![deny(clippy::undocumented_unsafe_blocks)]"),
]

UNSAFE = re.compile(r"\bunsafe\b(?!_)")
# A key handle borrowed shared: `&WriteKey`, `&'k ReadKey`; with its lifetime.
SHARED_KEY = re.compile(r"&(?:'(\w+)\s+)?(WriteKey|ReadKey|OpenKey)\b")
WIRE_TEXT = re.compile(r'c"(ERR |WRONGTYPE )')
CITES_SHARED = re.compile(r"shared/reference|\.\./shared")


# Paths a file's code names: `use` trees, and paths from `crate`, `super` or `self` anywhere.
USE_TREE = re.compile(r"\buse\s+([^;]*);", re.S)
ROOTED_PATH = re.compile(r"(?<![\w:])((?:crate|super|self)(?:::\w+)+)")
ANY_PATH = re.compile(r"(?<![\w:])(\w+)((?:::\w+)+)")


def module_path(path):
    """The module a file under src/ defines, as a tuple: src/glue/mod.rs is ('glue',)."""
    parts = path[len("src/"):-len(".rs")].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return tuple(parts)


def use_paths(tree):
    """The paths one `use` tree names: `a::{b, c::{d, self}}` is a::b, a::c::d and a::c."""
    tree = re.sub(r"\s+", " ", tree).strip()
    group = re.match(r"^(.*?)::\s*\{(.*)\}$", tree, re.S)
    if not group:
        return [tree.split(" as ")[0].strip()]
    prefix, body = group.groups()
    items, depth, item = [], 0, ""
    for ch in body:
        depth += (ch == "{") - (ch == "}")
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    paths = []
    for item in filter(None, (i.strip() for i in items)):
        for sub in use_paths(item):
            paths.append(prefix if sub == "self" else f"{prefix}::{sub}")
    return paths


def resolve(name, here, modules):
    """The file that defines the item path `name` names from module `here`, or None (std,
    other crates, or a name this file does not reach by path)."""
    segments = name.split("::")
    if segments[0] == "crate":
        base, segments = [], segments[1:]
    elif segments[0] in ("super", "self"):
        base = list(here)
        while segments and segments[0] in ("super", "self"):
            if segments[0] == "super":
                base = base[:-1]
            segments = segments[1:]
    elif tuple(list(here) + segments[:1]) in modules:
        base = list(here)  # a submodule, as `use add::ADD` in a mod.rs
    else:
        return None
    found = None
    for i in range(len(segments) + 1):
        module = tuple(base + segments[:i])
        if module in modules:
            found = modules[module]
        elif i > 0:
            break
    return found


def imports(root):
    """{file: files it imports} for the non-test files under src/. A module's own submodules
    are its structure (`mod` lines, re-exports), not imports."""
    files = [p for p in rust_files(root, "src") if not is_test_file(p)]
    modules = {module_path(p): p for p in files}
    graph = {}
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = "\n".join(code_lines(f.read().split("\n")))
        here = module_path(path)
        names = set(ROOTED_PATH.findall(text))
        for tree in USE_TREE.findall(text):
            names.update(use_paths(tree))
        # A module brought in by `use` starts paths from then on (`use super::types;`, then
        # `types::bf::REGISTERED`).
        aliases = {}
        for name in list(names):
            target = resolve(name, here, modules)
            last = name.split("::")[-1]
            if target is not None and module_path(target)[-1:] == (last,):
                aliases[last] = name
        for match in ANY_PATH.finditer(text):
            if match.group(1) in aliases:
                names.add(aliases[match.group(1)] + match.group(2))
        targets = set()
        for name in names:
            target = resolve(name, here, modules)
            if target and target != path and module_path(target)[:len(here)] != here:
                targets.add(target)
        graph[path] = targets
    return graph


def cycles(graph):
    """Each set of files that import one another in a circle (strongly connected, more than
    one file), with one circle through its first file."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles = []
    for component in found:
        start, inside = component[0], set(component)
        # The shortest way back to the first file, breadth first inside the component.
        came_from, frontier = {start: None}, [start]
        while frontier and start not in [w for v in frontier for w in graph[v]]:
            step = []
            for v in frontier:
                for w in sorted(graph[v] & inside):
                    if w not in came_from:
                        came_from[w] = v
                        step.append(w)
            frontier = step
        last = next(v for v in frontier if start in graph[v])
        circle = [last]
        while came_from[circle[-1]] is not None:
            circle.append(came_from[circle[-1]])
        circles.append((component, list(reversed(circle)) + [start]))
    return circles


def is_test_file(path):
    return "/tests/" in path or path.endswith("/tests.rs")


def rust_files(root, folder):
    base = os.path.join(root, folder)
    for dirpath, _, names in os.walk(base):
        for name in sorted(names):
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, root).replace(os.sep, "/")


def code_lines(lines):
    """The lines before the first `#[cfg(test)]`, each without its `//` comment."""
    out = []
    for line in lines:
        if line.strip().startswith("#[cfg(test)]"):
            break
        out.append(re.sub(r"//.*", "", line))
    return out


def wings(root):
    """The wings of each layer: {layer: set of names}."""
    found = {}
    for layer in ("core", "commands"):
        base = os.path.join(root, "src", layer)
        found[layer] = {
            n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n))
        }
    types = os.path.join(root, "src", "glue", "types")
    found["glue"] = {
        n[:-3] for n in os.listdir(types) if n.endswith(".rs") and n != "mod.rs"
    } if os.path.isdir(types) else set()
    return found


def where(path):
    """(layer, wing or None) of a source file."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "src":
        return None, None
    layer = parts[1]
    if layer in ("core", "commands") and len(parts) > 3:
        return layer, parts[2]
    if layer == "glue" and len(parts) > 3 and parts[2] == "types" and parts[3] != "mod.rs":
        return layer, parts[3][:-3]
    return layer, None


def named_wings(line, layer, all_wings):
    """The wings of `layer` a line of code names by path."""
    names = set()
    if layer == "glue":
        pattern = r"\btypes::(\w+)"
    else:
        pattern = r"\b(?:crate::%s|super(?:::super)*)::(\w+)" % layer
    for name in re.findall(pattern, line):
        if name in all_wings[layer]:
            names.add(name)
    return names


def check(root):
    problems = []

    def report(path, number, rule, what):
        problems.append(f"{path}:{number}: {rule}: {what}")

    all_wings = wings(root)
    for path in rust_files(root, "src"):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        # A wing's test files may compare it with another wing.
        is_test = is_test_file(path)
        code = [] if is_test else code_lines(lines)
        layer, wing = where(path)
        is_registry = path in ("src/core/mod.rs", "src/commands/mod.rs",
                               "src/glue/families.rs", "src/glue/types/mod.rs")
        for number, line in enumerate(code, 1):
            if layer == "core" and re.search(r"\bredis_module\b|crate::(commands|glue)\b", line):
                report(path, number, "layers", "the core uses neither redis_module nor the layers above it")
            if layer == "commands" and re.search(r"\bredis_module\b|crate::glue\b", line):
                report(path, number, "layers", "commands use neither redis_module nor the glue")
            if layer != "glue" and UNSAFE.search(line):
                report(path, number, "unsafe-outside-glue", "`unsafe` belongs in src/glue")
            if layer == "commands" and WIRE_TEXT.search(line) and not path.endswith("/errors.rs"):
                report(path, number, "wire-text", "error texts live in an errors.rs")
            if "raw::reply_with_" in line:
                report(path, number, "reply-api", "reply through glue/reply.rs, which checks each API pointer")
            if layer in ("core", "commands", "glue") and not is_registry:
                for other in named_wings(line, layer, all_wings):
                    if wing is None:
                        report(path, number, "shared-names-family",
                               f"a shared file names the {layer} wing '{other}'")
                    elif other != wing:
                        report(path, number, "wing-imports-wing",
                               f"the {layer} wing '{wing}' names the wing '{other}'")
            if layer == "glue" and wing is None and not is_registry:
                for other in all_wings["commands"] | all_wings["core"]:
                    if re.search(r"\bcrate::(commands|core)::%s\b" % re.escape(other), line):
                        report(path, number, "shared-names-family",
                               f"a shared glue file names the family '{other}'")
    for rule, prefix, shared_only, counted, limit in BUDGETS:
        for path in rust_files(root, prefix.rstrip("/")):
            if shared_only and "/" in path[len(prefix):]:
                continue
            with open(os.path.join(root, path), encoding="utf-8") as f:
                lines = f.read().rstrip("\n").split("\n")
            n = len(code_lines(lines)) if counted == "code" else len(lines)
            if n > limit:
                report(path, n, rule, f"{n} {'lines of code' if counted == 'code' else 'lines'}, over {limit}")
    for path in rust_files(root, "src/commands"):
        if is_test_file(path):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = "\n".join(code_lines(f.read().split("\n")))
        for signature in re.finditer(r"\bfn\s+\w+[^{;]*", text):
            for lifetime, handle in SHARED_KEY.findall(signature.group(0)):
                lends = lifetime and re.search(
                    r"&'%s\s+mut\b|Tracked<'%s\b" % (lifetime, lifetime), signature.group(0))
                if handle == "WriteKey" or lends:
                    number = text.count("\n", 0, signature.start()) + 1
                    report(path, number, "key-borrow",
                           f"a shared borrow of a {handle} must not lend its value mutably: "
                           "take the key as `&mut`, so a second lookup does not compile")
    for component, circle in cycles(imports(root)):
        report(circle[0], 1, "import-cycle",
               f"{len(component)} files import one another: " + " -> ".join(circle))
    for folder in ("src", "fuzz/src"):
        for dirpath, _, _ in os.walk(os.path.join(root, folder)):
            if os.path.isfile(dirpath + ".rs"):
                path = os.path.relpath(dirpath + ".rs", root).replace(os.sep, "/")
                report(path, 1, "module-style",
                       f"a module with submodules is {path[:-3]}/mod.rs, not a file beside its folder")
    for path, attribute in REQUIRED:
        full = os.path.join(root, path)
        if not os.path.exists(full) or attribute not in open(full, encoding="utf-8").read():
            report(path, 1, "attributes", f"must declare {attribute}")
    for folder in ("src", "tests", "fuzz/src", "fuzz/fuzz_targets"):
        for path in rust_files(root, folder):
            for number, line in enumerate(open(os.path.join(root, path), encoding="utf-8"), 1):
                if CITES_SHARED.search(line):
                    report(path, number, "citations", "cite upstream files or the repo's own docs")
    return problems


# One planted violation per rule: (rule, file, text appended or a replacement).
PLANTS = [
    ("layers", "src/core/le.rs", "use crate::commands::errors;\n"),
    ("layers", "src/commands/spec.rs", "use crate::glue::reply;\n"),
    ("unsafe-outside-glue", "src/core/le.rs", "fn f() { unsafe {} }\n"),
    ("wire-text", "src/commands/bf/add.rs", 'const X: &CStr = c"ERR planted";\n'),
    ("reply-api", "src/glue/info.rs", "fn f() { raw::reply_with_long_long(); }\n"),
    ("shared-names-family", "src/commands/call.rs", "use crate::commands::cf::rules;\n"),
    ("shared-names-family", "src/glue/context.rs", "use crate::core::cf::CuckooFilter;\n"),
    ("wing-imports-wing", "src/commands/bf/add.rs", "use crate::commands::cf::rules;\n"),
    ("wing-imports-wing", "src/core/cf/rdb.rs", "use crate::core::bf::chain;\n"),
    ("size-shared-commands", "src/commands/reply.rs", "// planted\n" * 160),
    ("size-glue", "src/glue/ffi.rs", "// planted\n" * 310),
    ("size-source", "src/core/le.rs", "// planted\n" * 610),
    ("size-tests", "tests/replication.rs", "// planted\n" * 810),
    ("size-fuzz", "fuzz/src/dump.rs", "// planted\n" * 810),
    ("attributes", "src/glue/mod.rs", ("#![deny(unsafe_op_in_unsafe_fn)]", "")),
    ("citations", "src/core/hash.rs", "// see ../shared/reference/x.md\n"),
    ("module-style", "src/core/cms.rs", "//! planted\n"),
    ("key-borrow", "src/commands/cms/mod.rs",
     "fn again<'k>(key: &'k ReadKey) -> &'k mut CountMinSketch { todo!() }\n"),
    ("key-borrow", "src/commands/topk/mod.rs", "fn again(key: &WriteKey) {}\n"),
    # glue/reply.rs reads glue/server.rs: the server's state reading a reply closes a circle.
    ("import-cycle", "src/glue/server.rs", "use super::reply::learn_double_format;\n"),
]


def self_test(root):
    failures = []
    clean = check(root)
    if clean:
        failures.append("the tree itself is not clean:\n  " + "\n  ".join(clean))
    for rule, path, plant in PLANTS:
        with tempfile.TemporaryDirectory() as copy:
            for folder in ("src", "tests", "fuzz/src", "fuzz/fuzz_targets"):
                if os.path.isdir(os.path.join(root, folder)):
                    shutil.copytree(os.path.join(root, folder), os.path.join(copy, folder))
            target = os.path.join(copy, path)
            text = open(target, encoding="utf-8").read() if os.path.exists(target) else ""
            if isinstance(plant, tuple):
                text = text.replace(plant[0], plant[1])
            elif text.find("#[cfg(test)]") >= 0:
                at = text.find("#[cfg(test)]")
                text = text[:at] + plant + text[at:]
            else:
                text += plant
            open(target, "w", encoding="utf-8").write(text)
            # A circle is reported once, at its first file, naming every file on it.
            reported = [p for p in check(copy)
                        if f": {rule}: " in p and (p.startswith(path + ":") or f" {path} " in p)]
            if not reported:
                failures.append(f"a planted {rule} violation in {path} was not reported")
            else:
                print(f"self-test: {rule}: caught {reported[0]}")
    return failures


def main():
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        root = args[1] if len(args) > 1 else default_root()
        failures = self_test(root)
        for failure in failures:
            print(f"self-test: {failure}")
        sys.exit(1 if failures else 0)
    root = args[0] if args else default_root()
    problems = check(root)
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)


def default_root():
    here = os.path.dirname(os.path.abspath(__file__))
    return subprocess.run(["git", "-C", here, "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True, check=False).stdout.strip() or \
        os.path.dirname(here)


if __name__ == "__main__":
    main()
