#!/usr/bin/env python3
"""Man pages and shell completions of faultline and faultline-collect, from their --help.

Run at build time (packaging/CMakeLists.txt) so that the installed documentation is the help of
the very binary it ships with, never a hand-kept copy:

  gen-cli-docs.py --faultline build/faultline --collect scripts/faultline-collect \
                  --version 0.1.0 --out build/cli-docs [--run "qemu-aarch64 -L /usr/aarch64-linux-gnu"]

Writes OUT/faultline.1, OUT/faultline-collect.1, OUT/bash/{faultline,faultline-collect} and
OUT/zsh/{_faultline,_faultline-collect}. It walks `faultline --help`, then `faultline CMD --help`
for every subcommand listed (recursively: `rules list`, ...). The help is CLI11's layout:
"Usage:" line, sections "Positionals:", "Options:", "Subcommands:" of entries (name column,
then the description), and a footer (examples, "Exit codes: 0 ...; 1 ..."). The values
completed after an option are those its description lists after a colon ("Report format: md
(default), json, html"; "... severity or higher: info, warning, error, critical"); directories
after a DIR option (or one named --*-dir, --data), files after one whose description speaks of a
file or database, nothing after the others (sizes, counts, addresses).
"""

import argparse
import gzip
import os
import re
import shlex
import subprocess
import sys

SECTION = re.compile(r"^([A-Z][A-Za-z ]*):\s*$")
ENTRY = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")


class Opt:
    def __init__(self, names, value, desc, env=None, positional=False):
        self.names = names  # ["-o", "--output"]
        self.value = value  # "TEXT", "TEXT:DIR", "UINT", ... ; "" for flags
        self.desc = desc
        self.env = env
        self.positional = positional

    @property
    def takes_value(self):
        return bool(self.value)

    def kind(self):
        """What completes a value: 'none', 'dir', 'file', 'words:a b c', 'any'."""
        if not self.takes_value:
            return "none"
        words = format_values(self.desc)
        if words and self.value.upper() == "TEXT":
            return "words:" + " ".join(words)
        v = self.value.upper()
        name = self.names[-1]
        if "DIR" in v or name.endswith("-dir") or name == "--data":
            return "dir"
        d = self.desc.lower()
        if "FILE" in v or (
            re.search(r"\b(file|database)\b", d) and not re.search(r"\b(bytes|size|length|id|mib|stem)\b", d)
        ):
            return "file"
        return "any"


class Cmd:
    def __init__(self, path):
        self.path = path  # [] for the top level, ["rules", "list"]
        self.description = ""
        self.usage = ""
        self.positionals = []
        self.options = []
        self.subcommands = []  # (name, description)
        self.footer = ""
        self.children = []


WORD = r"[a-z][a-z0-9_-]*(?:\s*\([^)]*\))?"
VALUE_LIST = re.compile(r":\s*(%s(?:,\s*%s)+)" % (WORD, WORD))


def format_values(desc):
    """The values an option lists after a colon, as in 'Report format: md (default), json, html'
    or 'severity or higher: info, warning, error, critical (default: none)'."""
    m = VALUE_LIST.search(desc.replace("\n", " "))
    if not m:
        return []
    return [re.sub(r"\(.*?\)", "", w).strip() for w in m.group(1).split(",")]


def parse_entry_name(text):
    """'-o,--output TEXT:DIR ... REQUIRED (Env:X)' -> names, value, env."""
    env = None
    m = re.search(r"\(Env:(\w+)\)", text)
    if m:
        env = m.group(1)
        text = text[: m.start()] + text[m.end() :]
    parts = text.split()
    if not parts:
        return [], "", env
    first = parts[0]
    rest = [p for p in parts[1:] if p not in ("REQUIRED", "...")]
    # collector style: "-o, --output DIR"
    names = []
    if first.startswith("-"):
        names = [n for n in first.split(",") if n]
        while rest and rest[0].startswith("-"):
            names += [n for n in rest.pop(0).split(",") if n]
    else:
        names = [first]
    value = rest[0] if rest else ""
    if value.startswith("="):  # CLI11 default value "=4G"
        value = ""
    return names, value, env


def parse_help(text, path):
    cmd = Cmd(path)
    lines = text.rstrip("\n").split("\n")
    i = 0
    desc = []
    while i < len(lines) and not lines[i].startswith("Usage:"):
        desc.append(lines[i])
        i += 1
    cmd.description = "\n".join(desc).strip()
    if i < len(lines):
        cmd.usage = lines[i][len("Usage:") :].strip()
        i += 1
    section = None
    entries = []  # (section, [name, desc])
    footer = []
    while i < len(lines):
        line = lines[i]
        i += 1
        if footer:  # the footer runs to the end
            footer.append(line)
            continue
        m = SECTION.match(line)
        if m and m.group(1) in ("Positionals", "Options", "Subcommands"):
            section = m.group(1)
            continue
        if not line.strip():
            section = None
            continue
        if section:
            if line.startswith("   ") and entries:  # a description's next line
                entries[-1][1][1] = (entries[-1][1][1] + "\n" + line.strip()).strip()
                continue
            e = ENTRY.match(line)
            if e:
                entries.append((section, [e.group(1).strip(), (e.group(2) or "").strip()]))
                continue
        footer.append(line)
    cmd.footer = "\n".join(footer).strip()
    for sec, (name, d) in entries:
        if sec == "Subcommands":
            cmd.subcommands.append((name.split()[0], d))
            continue
        names, value, env = parse_entry_name(name)
        o = Opt(names, value, d, env, positional=(sec == "Positionals"))
        (cmd.positionals if o.positional else cmd.options).append(o)
    return cmd


def run_help(run, binary, args):
    argv = run + [binary] + args + ["--help"]
    # a sanitizer build's binary: only its help matters here, not leaks at exit
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0 or not p.stdout.strip():
        sys.exit("gen-cli-docs: %s exited %d: %s" % (" ".join(argv), p.returncode, p.stderr))
    return p.stdout


def walk(run, binary, path=(), inherited=()):
    cmd = parse_help(run_help(run, binary, list(path)), list(path))
    if cmd.footer in inherited:  # CLI11 gives a subcommand its parent's footer
        cmd.footer = ""
    for name, _ in cmd.subcommands:
        cmd.children.append(walk(run, binary, path + (name,), inherited + (cmd.footer,)))
    return cmd


def all_cmds(cmd):
    yield cmd
    for c in cmd.children:
        yield from all_cmds(c)


# ------------------------------------------------------------------------------------- roff


def roff(text):
    out = []
    for line in text.split("\n"):
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def roff_opt(o):
    names = ", ".join("\\fB%s\\fR" % roff(n) for n in o.names)
    if o.value:
        names += " \\fI%s\\fR" % roff(o.value)
    lines = [".TP", names, roff(o.desc) if o.desc else ""]
    if o.env:
        lines.append(".br\nAlso from the environment variable \\fB%s\\fR." % roff(o.env))
    return "\n".join(lines)


def roff_footer(text):
    """Footer: paragraphs (consecutive lines joined); example lines ("  faultline ...") verbatim."""
    out = []
    verbatim = False
    para = []

    def flush():
        if para:
            out.append(".PP\n" + roff(" ".join(para)))
            para.clear()

    for line in text.split("\n"):
        if line.startswith("  "):
            flush()
            if not verbatim:
                out.append(".PP\n.nf\n.RS 4")
                verbatim = True
            out.append(roff(line.strip()))
            continue
        if verbatim:
            out.append(".RE\n.fi")
            verbatim = False
        if line.strip():
            para.append(line.strip())
            if line.rstrip().endswith(":"):  # "Examples:" stands alone
                flush()
        else:
            flush()
    flush()
    if verbatim:
        out.append(".RE\n.fi")
    return "\n".join(out)


def split_exit_codes(footer):
    """'... Exit codes: 0 done; 1 a finding ...; 2 usage ...' -> (rest, [(code, text)])."""
    m = re.search(r"Exit (?:codes|status):\s*(.*)", footer, re.IGNORECASE | re.DOTALL)
    if not m:
        return footer, []
    rest = footer[: m.start()].rstrip()
    body = " ".join(m.group(1).split())
    codes = []
    for part in body.split(";"):
        part = part.strip().rstrip(".")
        mm = re.match(r"(\d+)\s+(.*)", part)
        if mm:
            codes.append((mm.group(1), mm.group(2)))
        elif codes and part:
            codes[-1] = (codes[-1][0], codes[-1][1] + "; " + part)
    return rest, codes


def env_vars(cmds):
    found = {}
    for c in cmds:
        for o in c.options:
            texts = [o.desc] + ([o.env] if o.env else [])
            for t in texts:
                for v in re.findall(r"\b(?:FAULTLINE|XDG)_[A-Z_]+\b", t or ""):
                    found.setdefault(v, set()).add(" ".join(["faultline"] + c.path + [o.names[-1]]))
        for v in re.findall(r"\b(?:FAULTLINE|XDG)_[A-Z_]+\b", c.footer):
            found.setdefault(v, set()).add(" ".join(["faultline"] + c.path))
    return found


def man_faultline(top, version):
    cmds = list(all_cmds(top))
    title_desc = top.description.split("\n")[0]
    name_line = title_desc.split(":", 1)[1].strip().rstrip(".") if ":" in title_desc else title_desc
    rest_footer, codes = split_exit_codes(top.footer)
    out = [
        '.\\" Generated by scripts/gen-cli-docs.py from `faultline --help`; do not edit.',
        '.TH FAULTLINE 1 "" "faultline %s" "User Commands"' % version,
        ".ad l\n.nh",
        ".SH NAME",
        "faultline \\- " + roff(name_line),
        ".SH SYNOPSIS",
    ]
    for c in cmds:
        if c.children and c.path:
            continue
        if not c.path:
            continue
        out.append(".B faultline %s\n%s\n.br" % (roff(" ".join(c.path)), roff(usage_args(c))))
    out.append(".B faultline\n\\-\\-version | \\-\\-help")
    # the description's first line ("faultline: offline ...") is the NAME line
    description = top.description.split("\n", 1)[1] if ":" in title_desc else top.description
    out += [".SH DESCRIPTION", roff(description.strip())]
    if rest_footer:
        out.append(roff_footer(rest_footer))
    out.append(".SH OPTIONS")
    for o in top.options:
        out.append(roff_opt(o))
    out.append(".SH COMMANDS")
    for c in cmds:
        if not c.path:
            continue
        out.append('.SS "faultline %s"' % roff(" ".join(c.path)))
        out.append(".B faultline %s\n%s" % (roff(" ".join(c.path)), roff(usage_args(c))))
        out.append(".PP\n" + roff(c.description))
        if c.subcommands:
            out.append(".PP\nSubcommands:")
            for n, d in c.subcommands:
                out.append(".TP\n\\fB%s\\fR\n%s" % (roff(n), roff(d)))
        for o in c.positionals:
            out.append(".TP\n\\fI%s\\fR\n%s" % (roff(o.names[0]), roff(o.desc)))
        for o in c.options:
            if o.names[-1] == "--help":
                continue
            out.append(roff_opt(o))
        if c.footer:
            out.append(roff_footer(c.footer))
    out.append(".SH EXIT STATUS")
    if not codes:
        sys.exit("gen-cli-docs: `faultline --help` states no 'Exit codes:'")
    for code, text in codes:
        out.append(".TP\n.B %s\n%s" % (code, roff(text)))
    envs = env_vars(cmds)
    if envs:
        out.append(".SH ENVIRONMENT")
        for v in sorted(envs):
            out.append(".TP\n.B %s\nSee %s." % (roff(v), roff(", ".join(sorted(envs[v])))))
    out += [
        ".SH FILES",
        ".TP\n.I /etc/default/faultline\nOptions of \\fBfaultline serve\\fR as run by "
        "\\fIfaultline.service\\fR (Debian package).",
        ".TP\n.I /var/lib/faultline\nData directory of the service: \\fIserve/\\fR (uploads, "
        "analyses), \\fIcache/\\fR (compiled rules), \\fItoken\\fR (access token).",
        ".TP\n.I /usr/share/faultline/rules\nA copy of the built\\-in rules (the binary carries "
        "its own); the starting point of a \\fB\\-\\-rules\\fR \\fIDIR\\fR override.",
        ".TP\n.I /usr/share/doc/faultline\nREADME and the reference documentation.",
        ".SH SEE ALSO",
        ".BR faultline\\-collect (1)",
        "",
    ]
    return "\n".join(out)


def usage_args(c):
    """'build/faultline rules list [OPTIONS]' -> '[OPTIONS]' (argv[0] is the build's path)."""
    words = c.usage.split()
    return " ".join(words[1 + len(c.path) :])


def man_collect(c, version):
    # "Usage: faultline-collect [OPTIONS]", a paragraph, "Options:", then "Output: ..." text
    rest_footer, codes = split_exit_codes(c.footer)
    out = [
        '.\\" Generated by scripts/gen-cli-docs.py from `faultline-collect --help`; do not edit.',
        '.TH FAULTLINE\\-COLLECT 1 "" "faultline %s" "User Commands"' % version,
        ".ad l\n.nh",
        ".SH NAME",
        "faultline\\-collect \\- gather the evidence of a live Ascend NPU node into one bundle",
        ".SH SYNOPSIS",
        ".B faultline\\-collect\n" + roff(c.usage.split(None, 1)[1] if " " in c.usage else ""),
        ".SH DESCRIPTION",
    ]
    out.append(roff_footer(c.description) if c.description else "")
    out.append(".SH OPTIONS")
    for o in c.options:
        out.append(roff_opt(o))
    if rest_footer:
        m = re.match(r"Output:\s*(.*)", rest_footer, re.DOTALL)
        if m:
            out.append(".SH OUTPUT")
            out.append(roff_footer(" ".join(m.group(1).split())))
        else:
            out.append(roff_footer(rest_footer))
    if codes:
        out.append(".SH EXIT STATUS")
        for code, text in codes:
            out.append(".TP\n.B %s\n%s" % (code, roff(text)))
    out += [".SH SEE ALSO", ".BR faultline (1)", ""]
    return "\n".join(out)


def parse_collect_help(text):
    """The collector's hand-written usage: description before Options:, the rest the footer."""
    c = Cmd([])
    lines = text.rstrip("\n").split("\n")
    i = 0
    while i < len(lines) and not lines[i].startswith("Usage:"):
        i += 1
    c.usage = lines[i][len("Usage:") :].strip() if i < len(lines) else "faultline-collect"
    i += 1
    desc = []
    while i < len(lines) and lines[i].strip() != "Options:":
        desc.append(lines[i])
        i += 1
    c.description = " ".join(" ".join(desc).split())
    i += 1
    entries = []
    while i < len(lines) and (lines[i].startswith("  ") or not lines[i].strip()):
        line = lines[i]
        i += 1
        if not line.strip():
            break
        if line.startswith("   ") and entries:
            entries[-1][1] += " " + line.strip()
            continue
        e = ENTRY.match(line)
        if e:
            entries.append([e.group(1).strip(), (e.group(2) or "").strip()])
    c.footer = "\n".join(lines[i:]).strip()
    for name, d in entries:
        names, value, env = parse_entry_name(name)
        c.options.append(Opt(names, value, d, env))
    return c


# ------------------------------------------------------------------------------ completion


def completion_tables(prog, cmds, shell):
    """Shell functions shared by the bash and the zsh completion (case syntax of both)."""
    fn = re.sub(r"\W", "_", prog)
    subs, opts, kinds, posit = [], [], [], []
    for c in cmds:
        key = " ".join(c.path)
        subs.append('    "%s") REPLY="%s" ;;' % (key, " ".join(n for n, _ in c.subcommands)))
        names = [n for o in c.options for n in o.names if n.startswith("-")]
        opts.append('    "%s") REPLY="%s" ;;' % (key, " ".join(names)))
        for o in c.options:
            k = o.kind()
            if k == "none":
                continue
            for n in o.names:
                kinds.append('    "%s|%s") REPLY="%s" ;;' % (key, n, k))
        if c.positionals:
            k = "dir" if all(o.kind() == "dir" for o in c.positionals) else "file"
            posit.append('    "%s") REPLY="%s" ;;' % (key, k))
    return "\n".join(
        [
            "# subcommands of a command path",
            "_%s_subs() {" % fn,
            '  case "$1" in',
            *subs,
            '    *) REPLY="" ;;',
            "  esac",
            "}",
            "# options of a command path",
            "_%s_opts() {" % fn,
            '  case "$1" in',
            *opts,
            '    *) REPLY="" ;;',
            "  esac",
            "}",
            "# what follows an option (none, file, dir, any, words:W1 W2): PATH|OPTION",
            "_%s_kind() {" % fn,
            '  case "$1" in',
            *kinds,
            "    *) REPLY=none ;;",
            "  esac",
            "}",
            "# what a positional argument is (file, dir; empty: none)",
            "_%s_posit() {" % fn,
            '  case "$1" in',
            *posit,
            '    *) REPLY="" ;;',
            "  esac",
            "}",
            "# the command path and the option awaiting a value, from the words before the cursor",
            "_%s_scan() {" % fn,
            "  local i w",
            '  _fl_path=""; _fl_pending=""',
            "  for w in \"$@\"; do",
            '    if [ -n "$_fl_pending" ]; then _fl_pending=""; continue; fi',
            '    case "$w" in',
            "      --*=*) continue ;;",
            "      -*)",
            '        _%s_kind "$_fl_path|$w"' % fn,
            '        [ "$REPLY" != none ] && _fl_pending=$w',
            "        continue ;;",
            "    esac",
            '    _%s_subs "$_fl_path"' % fn,
            "    for i in %s; do" % ("${=REPLY}" if shell == "zsh" else "$REPLY"),
            '      if [ "$w" = "$i" ]; then _fl_path=${_fl_path:+$_fl_path }$w; break; fi',
            "    done",
            "  done",
            "}",
        ]
    )


def bash_completion(prog, cmds):
    fn = re.sub(r"\W", "_", prog)
    return "\n".join(
        [
            "# bash completion of %s; generated by scripts/gen-cli-docs.py from --help." % prog,
            completion_tables(prog, cmds, "bash"),
            "_%s() {" % fn,
            "  local cur=${COMP_WORDS[COMP_CWORD]} REPLY _fl_path _fl_pending kind",
            "  local -a before=(\"${COMP_WORDS[@]:1:COMP_CWORD-1}\")",
            "  # --format=j: bash splits it into '--format' '=' 'j'",
            '  if [ "${COMP_WORDS[COMP_CWORD-1]}" = "=" ] && [ "$COMP_CWORD" -ge 2 ]; then',
            '    before=("${COMP_WORDS[@]:1:COMP_CWORD-3}" "${COMP_WORDS[COMP_CWORD-2]}")',
            "  elif [ \"$cur\" = \"=\" ]; then",
            '    cur=""; before=("${COMP_WORDS[@]:1:COMP_CWORD-2}" "${COMP_WORDS[COMP_CWORD-1]}")',
            "  fi",
            '  _%s_scan "${before[@]}"' % fn,
            "  COMPREPLY=()",
            '  if [ -n "$_fl_pending" ]; then',
            '    _%s_kind "$_fl_path|$_fl_pending"; kind=$REPLY' % fn,
            '    case "$kind" in',
            '      words:*) mapfile -t COMPREPLY < <(compgen -W "${kind#words:}" -- "$cur") ;;',
            '      dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;',
            '      file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;',
            "    esac",
            "    return 0",
            "  fi",
            '  if [ "${cur#-}" != "$cur" ]; then',
            '    _%s_opts "$_fl_path"' % fn,
            '    mapfile -t COMPREPLY < <(compgen -W "$REPLY" -- "$cur")',
            "    return 0",
            "  fi",
            '  _%s_subs "$_fl_path"' % fn,
            '  if [ -n "$REPLY" ]; then',
            '    mapfile -t COMPREPLY < <(compgen -W "$REPLY" -- "$cur")',
            "    return 0",
            "  fi",
            '  _%s_posit "$_fl_path"' % fn,
            '  case "$REPLY" in',
            '    dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;',
            '    file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;',
            "  esac",
            "  return 0",
            "}",
            "complete -o filenames -o bashdefault -F _%s %s" % (fn, prog),
            "",
        ]
    )


def zsh_completion(prog, cmds):
    fn = re.sub(r"\W", "_", prog)
    return "\n".join(
        [
            "#compdef %s" % prog,
            "# zsh completion of %s; generated by scripts/gen-cli-docs.py from --help." % prog,
            completion_tables(prog, cmds, "zsh"),
            "_%s() {" % fn,
            "  local REPLY _fl_path _fl_pending kind cur=${words[CURRENT]}",
            "  _%s_scan \"${(@)words[2,CURRENT-1]}\"" % fn,
            '  if [ -n "$_fl_pending" ]; then',
            '    _%s_kind "$_fl_path|$_fl_pending"; kind=$REPLY' % fn,
            '    case "$kind" in',
            "      words:*) compadd -- ${=kind#words:} ;;",
            "      dir) _files -/ ;;",
            "      file) _files ;;",
            "      *) _message value ;;",
            "    esac",
            "    return",
            "  fi",
            '  if [[ $cur == --*=* ]]; then',
            '    _%s_kind "$_fl_path|${cur%%%%=*}"; kind=$REPLY' % fn,
            '    if [[ $kind == words:* ]]; then compset -P "*="; compadd -- ${=kind#words:}; fi',
            "    return",
            "  fi",
            "  if [[ $cur == -* ]]; then",
            '    _%s_opts "$_fl_path"; compadd -- ${=REPLY}' % fn,
            "    return",
            "  fi",
            '  _%s_subs "$_fl_path"' % fn,
            '  if [ -n "$REPLY" ]; then compadd -- ${=REPLY}; return; fi',
            '  _%s_posit "$_fl_path"' % fn,
            '  case "$REPLY" in',
            "    dir) _files -/ ;;",
            "    file) _files ;;",
            "  esac",
            "}",
            '_%s "$@"' % fn,
            "",
        ]
    )


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_man(path, text):
    """PATH and PATH.gz (reproducible: no name, no time in the gzip header)."""
    write(path, text)
    with open(path + ".gz.tmp", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as z:
            z.write(text.encode("utf-8"))
    os.replace(path + ".gz.tmp", path + ".gz")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--faultline", required=True, help="the built faultline binary")
    ap.add_argument("--collect", required=True, help="scripts/faultline-collect")
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--run", default="", help="emulator running the binary (cross builds)")
    a = ap.parse_args()
    run = shlex.split(a.run)

    top = walk(run, a.faultline)
    cmds = list(all_cmds(top))
    for c in cmds:
        if not c.options:
            sys.exit("gen-cli-docs: no options parsed from `faultline %s --help`" % " ".join(c.path))
    fmt = [o for c in cmds for o in c.options if "--format" in o.names]
    if not fmt or any(not o.kind().startswith("words:") for o in fmt):
        sys.exit("gen-cli-docs: no --format values found in the help ('Report format: md, ...')")
    p = subprocess.run(["sh", a.collect, "--help"], stdout=subprocess.PIPE, text=True, check=True)
    col = parse_collect_help(p.stdout)
    if not col.options:
        sys.exit("gen-cli-docs: no options parsed from `faultline-collect --help`")

    write_man(os.path.join(a.out, "faultline.1"), man_faultline(top, a.version))
    write_man(os.path.join(a.out, "faultline-collect.1"), man_collect(col, a.version))
    write(os.path.join(a.out, "bash", "faultline"), bash_completion("faultline", cmds))
    write(os.path.join(a.out, "bash", "faultline-collect"), bash_completion("faultline-collect", [col]))
    write(os.path.join(a.out, "zsh", "_faultline"), zsh_completion("faultline", cmds))
    write(os.path.join(a.out, "zsh", "_faultline-collect"), zsh_completion("faultline-collect", [col]))


if __name__ == "__main__":
    main()
