"""mlir-opt's general options, as gmx-opt and gmx-run take them.

`OPTIONS` is the table: each option's spelling (mlir-opt's), help, kind
of value, which tools take it and how it applies: as a keyword of
`Operation.print` (the output), of `PassManager.enable_ir_printing` (the
IR dumps), or on the context or the PassManager. `parse_general` takes
them out of a command line, once, into a `GeneralOptions`, which the
tools apply (`configure_context`, `running`, `print_module`) and which
`gmx.passes.instrument` applies to pass managers the tools do not build.

Values are spelled as LLVM's command line spells them: a flag is on as
`--flag` or `--flag=true` (`=1`, `=false`, `=0`), a value follows `=` or
comes as the next argument (`--mlir-print-ir-tree-dir DIR`), a pass list
is comma-separated and may be given again.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from gmx.dialect.errors import GmxError
from gmx.dialect.mlir import ir, passmanager
from gmx.passes.pipeline import split_top_level

from .ir_dumps import filtered_stderr, filtered_tree

OPT, RUN = "gmx-opt", "gmx-run"
BOTH = (OPT, RUN)

# Kinds of value.
FLAG = "flag"  # on/off: --x, --x=true|false|1|0
UINT = "uint"  # --x=N, N >= 0
PATH = "path"  # --x=DIR
PASSES = "pass-arg"  # --x=a,b (repeatable)
CHOICE = "value"  # --x=one of `choices`

_METAVAR = {UINT: "<uint>", PATH: "<string>", PASSES: "<pass-arg>", CHOICE: "<value>"}


class GeneralOptionError(GmxError, ValueError):
    """A general option given a value it cannot take."""


def _call(method: str, dest: str) -> Callable[[object, GeneralOptions], None]:
    """How a flag applies: call `method()` on the target when `dest` is on."""

    def apply(target, options: GeneralOptions) -> None:
        if options.values.get(dest):
            getattr(target, method)()

    return apply


def _statistics(pm: passmanager.PassManager, options: GeneralOptions) -> None:
    if options.values.get("mlir_pass_statistics"):
        pm.enable_statistics(passmanager.PassDisplayMode.__members__[options.mlir_pass_statistics_display.upper()])


@dataclass(frozen=True)
class GeneralOption:
    name: str  # as spelled after `--`
    help: str
    kind: str = FLAG
    tools: tuple[str, ...] = BOTH
    default: object = False
    asm: str | None = None  # keyword of Operation.print it sets (the output)
    dump: str | None = None  # keyword of enable_ir_printing it sets (the dumps)
    # how it applies to a context / a pass manager, given all the options
    context: Callable[[ir.Context, GeneralOptions], None] | None = None
    pass_manager: Callable[[passmanager.PassManager, GeneralOptions], None] | None = None
    group: str = "General options"
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")


OPTIONS: tuple[GeneralOption, ...] = (
    GeneralOption("allow-unregistered-dialect", "Allow operation with no registered dialects", tools=(OPT,),
                  context=lambda context, o: setattr(context, "allow_unregistered_dialects",
                                                     o.allow_unregistered_dialect)),
    GeneralOption("dump-pass-pipeline", "Print the pipeline that will be run"),
    GeneralOption("emit-bytecode", "Emit bytecode when generating output", tools=(OPT,)),
    GeneralOption("emit-bytecode-version", "Use specified bytecode when generating output", kind=UINT,
                  tools=(OPT,), default=None),
    GeneralOption("mlir-disable-threading", "Disable multi-threading within MLIR (gmx's contexts are single-threaded "
                  "already, the bindings' default)", tools=(OPT,),
                  context=lambda context, o: o.mlir_disable_threading and context.enable_multithreading(False)),
    GeneralOption("mlir-elide-elementsattrs-if-larger",
                  'Elide ElementsAttrs with "..." that have more elements than the given upper limit',
                  kind=UINT, default=None, asm="large_elements_limit", dump="large_elements_limit"),
    GeneralOption("mlir-elide-resource-strings-if-larger",
                  "Elide printing value of resources if string is too long in chars.",
                  kind=UINT, default=None, asm="large_resource_limit", dump="large_resource_limit"),
    GeneralOption("mlir-pass-statistics", "Display the statistics of each pass", pass_manager=_statistics),
    GeneralOption("mlir-pass-statistics-display", "Display method for pass statistics (list or pipeline)",
                  kind=CHOICE, choices=("list", "pipeline"), default="pipeline"),
    GeneralOption("mlir-pretty-debuginfo", "Print pretty debug info in MLIR output", tools=(OPT,),
                  asm="pretty_debug_info"),
    GeneralOption("mlir-print-debuginfo", "Print debug info in MLIR output", asm="enable_debug_info",
                  dump="enable_debug_info"),
    GeneralOption("mlir-print-ir-after", "Print IR after specified passes", kind=PASSES, default=()),
    GeneralOption("mlir-print-ir-after-all", "Print IR after each pass"),
    GeneralOption("mlir-print-ir-after-change", "When printing the IR after a pass, only print if the IR changed",
                  dump="print_after_change"),
    GeneralOption("mlir-print-ir-after-failure", "When printing the IR after a pass, only print if the pass failed",
                  dump="print_after_failure"),
    GeneralOption("mlir-print-ir-before", "Print IR before specified passes", kind=PASSES, default=()),
    GeneralOption("mlir-print-ir-before-all", "Print IR before each pass"),
    GeneralOption("mlir-print-ir-module-scope", "When printing IR for print-ir-[before|after]{-all} always print "
                  "the top-level operation", dump="print_module_scope"),
    GeneralOption("mlir-print-ir-tree-dir", "When printing the IR before/after a pass, print file tree rooted at "
                  "this directory. Use in conjunction with mlir-print-ir-* flags", kind=PATH, default=None,
                  dump="tree_printing_dir_path"),
    GeneralOption("mlir-print-local-scope", "Print with local scope and inline information (eliding aliases for "
                  "attributes, types, and locations)", tools=(OPT,), asm="use_local_scope"),
    GeneralOption("mlir-print-op-generic", "Print the generic op form", asm="print_generic_op_form",
                  dump="print_generic_op_form"),
    GeneralOption("mlir-print-skip-regions", "Skip regions when printing ops.", tools=(OPT,), asm="skip_regions"),
    GeneralOption("mlir-timing", "Display execution times", pass_manager=_call("enable_timing", "mlir_timing")),
    GeneralOption("mlir-use-nameloc-as-prefix", "Print SSA IDs using NameLocs as prefixes", tools=(OPT,),
                  asm="use_name_loc_as_prefix"),
    GeneralOption("show-dialects", "Print the list of registered dialects and exit", tools=(OPT,)),
    GeneralOption("verify-each", "Run the verifier after each transformation pass", default=True,
                  pass_manager=lambda pm, o: pm.enable_verifier(o.verify_each)),
    GeneralOption("version", "Display the version of this program", group="Generic Options"),
)


def options_of(tool: str) -> dict[str, GeneralOption]:
    """The general options `tool` takes, by name."""
    return {o.name: o for o in OPTIONS if tool in o.tools}


def _flag_value(option: GeneralOption, raw: str | None) -> bool:
    if raw is None:
        return True
    spelled = raw.strip().lower()
    if spelled in ("true", "1", ""):
        return True
    if spelled in ("false", "0"):
        return False
    raise GeneralOptionError(f"option '{option.flag}' takes true or false, not '{raw}'")


def _uint_value(option: GeneralOption, raw: str) -> int:
    if not raw.isdigit():
        raise GeneralOptionError(f"option '{option.flag}' takes a non-negative integer, not '{raw}'")
    return int(raw)


def _value(option: GeneralOption, raw: str | None, given):
    """The option's value once `raw` (the text after `=`, or the next
    argument) is read, `given` its value so far."""
    if option.kind == FLAG:
        return _flag_value(option, raw)
    if option.kind == UINT:
        return _uint_value(option, raw)
    if option.kind == PASSES:
        return tuple(given) + tuple(p.strip() for p in raw.split(",") if p.strip())
    if option.kind == CHOICE and raw not in option.choices:
        raise GeneralOptionError(f"option '{option.flag}' takes {' or '.join(option.choices)}, not '{raw}'")
    return raw


@dataclass(frozen=True)
class GeneralOptions:
    """The general options of one command line, each by its `dest`
    (`values["mlir_timing"]`); absent ones have their defaults."""

    values: Mapping[str, object]

    def __getattr__(self, dest: str):
        try:
            return self.values[dest]
        except KeyError:
            raise AttributeError(dest) from None

    # --- the output ---------------------------------------------------------

    def asm_flags(self) -> dict[str, object]:
        """Operation.print's keywords for the output."""
        return {o.asm: self.values[o.dest] for o in OPTIONS if o.asm and o.dest in self.values}

    def print_module(self, op: ir.Operation) -> str | bytes:
        """`op` as the output shows it: bytecode with --emit-bytecode, else
        text as the printing options say (unverified IR printed as MLIR
        prints it, when --verify-each=false let it through). Raises
        GeneralOptionError for a bytecode version this MLIR cannot write."""
        if self.values.get("emit_bytecode"):
            buffer = io.BytesIO()
            try:
                op.write_bytecode(buffer, desired_version=self.values.get("emit_bytecode_version"))
            except ValueError as error:  # a version this MLIR cannot write
                raise GeneralOptionError(f"option '--emit-bytecode-version': {error}") from None
            return buffer.getvalue()
        return op.get_asm(**self.asm_flags(), assume_verified=self.values.get("verify_each", True))

    # --- the context and the pass managers ----------------------------------

    def configure_context(self, context: ir.Context) -> None:
        for option in OPTIONS:
            if option.context and option.dest in self.values:
                option.context(context, self)

    def dump_flags(self) -> dict[str, object] | None:
        """enable_ir_printing's keywords, or None when no dump is asked for
        (as in mlir-opt, --mlir-print-ir-after-change, -module-scope and
        -tree-dir alone print nothing)."""
        before = self.values.get("mlir_print_ir_before_all") or bool(self.values.get("mlir_print_ir_before"))
        after = (self.values.get("mlir_print_ir_after_all") or bool(self.values.get("mlir_print_ir_after"))
                 or self.values.get("mlir_print_ir_after_failure"))
        if not (before or after):
            return None
        flags = {o.dump: self.values[o.dest] for o in OPTIONS if o.dump and o.dest in self.values}
        return {**flags, "print_before_all": bool(before), "print_after_all": bool(after)}

    def keeps_dump(self, when: str, names: set[str]) -> bool:
        """Whether a dump before or after a pass of these names is shown."""
        if when == "Before":
            return bool(self.values.get("mlir_print_ir_before_all")) or bool(
                names & set(self.values.get("mlir_print_ir_before", ())))
        return bool(self.values.get("mlir_print_ir_after_all") or self.values.get("mlir_print_ir_after_failure")
                    or names & set(self.values.get("mlir_print_ir_after", ())))

    def _filters_dumps(self) -> bool:
        return bool(self.values.get("mlir_print_ir_before") or self.values.get("mlir_print_ir_after"))

    @contextmanager
    def running(self, pm: passmanager.PassManager) -> Iterator[None]:
        """Configure `pm` (verifier, timing, statistics, IR dumps; the
        pipeline printed with --dump-pass-pipeline); within the block, the
        dumps of passes not named are held back."""
        for option in OPTIONS:
            if option.pass_manager and option.dest in self.values:
                option.pass_manager(pm, self)
        dumps = self.dump_flags()
        if dumps is not None:
            pm.enable_ir_printing(**dumps)
        if self.values.get("dump_pass_pipeline"):
            sys.stderr.write(pipeline_text(pm))
            sys.stderr.flush()
        tree = self.values.get("mlir_print_ir_tree_dir")
        if not self._filters_dumps():
            filtering = nullcontext()
        elif tree is not None:
            filtering = filtered_tree(tree, self.keeps_dump)
        else:
            filtering = filtered_stderr(self.keeps_dump)
        with filtering:
            yield


def parse_general(argv: Iterable[str], tool: str) -> tuple[GeneralOptions, list[str]]:
    """(the general options `tool` takes, found in `argv`; the other
    arguments, in order). Raises GeneralOptionError for a bad value."""
    known = options_of(tool)
    values: dict[str, object] = {o.dest: o.default for o in known.values()}
    rest: list[str] = []
    items = iter(argv)
    for item in items:
        if item == "--":
            rest.append(item)
            rest.extend(items)
            break
        name, eq, raw = item[2:].partition("=") if item.startswith("--") else ("", "", "")
        option = known.get(name)
        if option is None:
            rest.append(item)
            continue
        if not eq and option.kind != FLAG:
            raw = next(items, None)
            if raw is None:
                raise GeneralOptionError(f"option '{option.flag}' needs a value")
        values[option.dest] = _value(option, raw if (eq or option.kind != FLAG) else None, values[option.dest])
    return GeneralOptions(values), rest


def pipeline_text(pm: passmanager.PassManager) -> str:
    """The pipeline as mlir-opt's --dump-pass-pipeline prints it: a count
    of the top-level passes, then each nested pipeline indented."""
    text = str(pm)
    anchor, _, inner = text.partition("(")
    elements = split_top_level(inner[:-1])
    lines = [f"Pass Manager with {len(elements)} passes:"] + _nested(anchor, elements, "")
    return "\n".join(lines) + "\n\n"


def _nested(anchor: str, elements: list[str], indent: str) -> list[str]:
    lines = [f"{indent}{anchor}("]
    for i, element in enumerate(elements):
        name, paren, inner = element.partition("(")
        if paren and "{" not in name and element.endswith(")"):
            part = _nested(name, split_top_level(inner[:-1]), indent + "  ")
        else:
            part = [indent + "  " + element]
        if i < len(elements) - 1:
            part[-1] += ","
        lines += part
    lines.append(f"{indent})")
    return lines


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`; did you mean '--x'?` for the closest of `candidates` (flags
    with their dashes) to `word`, or '' when none is close."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.75)
    return f"; did you mean '{close[0]}'?" if close else ""


def parser_flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every `--flag` of an argparse parser, the general options it lists
    for help included (what a misspelt flag may be a near miss of)."""
    return {f for action in parser._actions for f in action.option_strings if f.startswith("--")}


def flags_of(tool: str) -> list[str]:
    """Every general flag `tool` takes."""
    return [o.flag for o in options_of(tool).values()]


def add_help_entries(group, tool: str, title: str) -> None:
    """List `tool`'s general options of group `title` in an argparse
    group, for --help only: `parse_general` takes them out of the command
    line before argparse parses it."""
    for option in sorted(options_of(tool).values(), key=lambda o: o.name):
        if option.group != title:
            continue
        shown = {"action": "store_true"} if option.kind == FLAG else {"metavar": _METAVAR[option.kind]}
        group.add_argument(option.flag, dest=f"_help_{option.dest}", default=argparse.SUPPRESS,
                           help=option.help, **shown)
