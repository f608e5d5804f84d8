"""Result rows and targets, and their rendering: the text tables (in-command first, then
throughput and the one-off measurements), the CSV and the chart."""

from __future__ import annotations

import csv
import importlib
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from harness import PYTHON_DEPS, log
from incommand import GET_SANITY, PIPELINE, SERVERS, TWINS, CellResult

VARIANTS = ("redis-bf", "RedisBloom", "fast")


@dataclass
class Target:
    """A requirement on one variant's value, or on its ratio to another entry of the row."""
    subject: str  # the variant judged: "redis-bf" or "fast"
    op: str  # ">=", "<=", "==" or "within" (|ratio - 1| <= limit)
    limit: float
    ref: str | None = None  # when set, the subject's value is divided by this entry's
    label: str = ""

    def measure(self, values: dict) -> float | None:
        value = values.get(self.subject)
        if value is None or self.ref is None:
            return value
        ref = values.get(self.ref)
        return value / ref if ref else None

    def verdict(self, values: dict) -> str:
        measured = self.measure(values)
        if measured is None:
            return "n/a"
        passed = {">=": measured >= self.limit, "<=": measured <= self.limit,
                  "==": measured == self.limit, "within": abs(measured - 1) <= self.limit}
        return "PASS" if passed[self.op] else "MISS"


def who(subject: str) -> str:
    return "" if subject == "redis-bf" else f"{subject} "


def factor_text(factor: float) -> str:
    return f"{factor:.1f}" if factor == int(factor) and factor < 10 else f"{factor:g}"


def at_least(factor: float, ref: str, ref_label: str, subject: str = "redis-bf") -> Target:
    return Target(subject, ">=", factor, ref, f"{who(subject)}≥{factor_text(factor)}×{ref_label}")


def at_most(factor: float, ref: str, ref_label: str, subject: str = "redis-bf") -> Target:
    return Target(subject, "<=", factor, ref, f"{who(subject)}≤{factor_text(factor)}×{ref_label}")


def no_more_than(limit: float, unit: str, subject: str = "redis-bf") -> Target:
    return Target(subject, "<=", limit, None, f"{who(subject)}≤{limit:g}{unit}")


@dataclass
class Row:
    section: str
    title: str
    pipeline: int | None
    unit: str  # how the values read: rps, items/s, ratio, ms, s, MiB, bytes, bits/item, FPR
    values: dict[str, float | None]  # variants and baselines by name
    baselines: list[str] = field(default_factory=list)  # names in values, main one first
    targets: list[Target] = field(default_factory=list)
    raw: dict[str, float] = field(default_factory=dict)  # extra measured rps, for the CSV only

    def verdict(self, targets=None) -> str:
        verdicts = {t.verdict(self.values) for t in (self.targets if targets is None else targets)}
        for verdict in ("MISS", "PASS", "n/a"):
            if verdict in verdicts:
                return verdict
        return ""


def fmt(value: float | None, unit: str, configured: float | None = None) -> str:
    if value is None:
        return "n/a"
    if unit in ("rps", "items/s"):
        return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"
    if unit == "FPR":
        deviation = f" ({(value / configured - 1) * 100:+.1f}%)" if configured else ""
        return f"{value:.3%}{deviation}"
    if unit == "bytes":
        return f"{value:,.0f} B"
    if unit in ("ratio", "bits/item"):
        return f"{value:.3f}"
    return f"{value:.3f} {unit}" if unit in ("ms", "s") else f"{value:.1f} {unit}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else ""


def target_text(targets: list[Target], values: dict) -> str:
    parts = []
    for t in targets:
        measured = t.measure(values)
        shown = "n/a" if measured is None else f"{measured:.2f}" if t.ref else f"{measured:.4g}"
        parts.append(f"{t.label} ({shown})")
    return "; ".join(parts)


def table_lines(rows: list[Row]) -> list[list[str]]:
    """One line per row, plus a line per extra baseline (the Lua script next to MADD)."""
    header = ["workload", "-P", "redis-bf", "RedisBloom", "fast", "baseline", "÷RB", "÷base",
              "target (measured)", "verdict"]
    lines, section = [header], None
    for row in rows:
        if row.section != section and section is not None:
            lines.append(None)  # a rule between sections
        section = row.section
        configured = row.values.get("configured")
        for n, base in enumerate(row.baselines or [None]):
            # Targets against RedisBloom or an absolute limit go with the main baseline's line.
            targets = [t for t in row.targets if t.ref == base or (n == 0 and t.ref not in row.baselines)]
            own = [fmt(row.values[v], row.unit, configured) if v in row.values else "-"
                   for v in VARIANTS]
            base_value = row.values.get(base) if base else None
            lines.append([
                row.title if n == 0 else f"  └ vs {base}",
                f"-P{row.pipeline}" if row.pipeline and n == 0 else "",
                *(own if n == 0 else ["", "", ""]),
                f"{base} {fmt(base_value, row.unit)}" if base else "",
                ratio(row.values["redis-bf"], row.values["RedisBloom"]) if n == 0 else "",
                ratio(row.values["redis-bf"], base_value),
                target_text(targets, row.values),
                row.verdict(targets),
            ])
    return lines


def render_lines(lines: list[list[str] | None], text_columns: tuple[int, ...]) -> str:
    """Columns padded to their widest cell, a rule under the header and for each None line.
    Text columns are left-aligned, numbers right-aligned."""
    widths = [max(len(line[i]) for line in lines if line) for i in range(len(lines[0]))]
    rule = "-+-".join("-" * w for w in widths)
    out = []
    for n, line in enumerate(lines):
        if line is None:
            out.append(rule)
            continue
        cells = [c.ljust(w) if i in text_columns else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        out.append(" | ".join(cells).rstrip())
        if n == 0:
            out.append(rule)
    return "\n".join(out)


def render_table(rows: list[Row]) -> str:
    return render_lines(table_lines(rows), (0, 1, 8, 9))


# --------------------------------------------------------------------------------------------
# The in-command table


def us(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def spread_text(value: float | None) -> str:
    return "" if value is None else f"+{(value - 1) * 100:.0f}%"


def incommand_lines(results: list[CellResult]) -> list[list[str] | None]:
    header = ["in-command time (µs, min of rounds)", "per", "redis-bf", "median", "max÷min",
              "RedisBloom", "median", "max÷min", "÷RB", "÷RB med", "above floor ÷RB", "CPU bf",
              "CPU RB", "CPU ÷RB", "target", "verdict"]
    lines: list[list[str] | None] = [header]
    def group(r: CellResult) -> str:
        return TWINS[r.cell.twin][1] if r.cell.twin else r.cell.command.split(".")[0].split()[0]

    for n, r in enumerate(results):
        if n and group(r) != group(results[n - 1]):
            lines.append(None)  # a rule between GET, BF, FAST and CF cells
        own = []
        for server in SERVERS:
            s = r.stats[server]
            own += ([us(s.min()), us(s.median()), spread_text(s.spread())] if s
                    else ["n/a", "", ""])
        bf, rb = r.stats["redis-bf"], r.stats["RedisBloom"]
        ratio, median_ratio, cpu_ratio = r.ratio(), r.ratio("median"), r.ratio("min", "cpu")
        above = r.above_floor_ratio()
        lines.append([
            r.cell.title, "item" if r.cell.items > 1 else "call", *own,
            "n/a" if ratio is None else f"{ratio:.2f}",
            "" if median_ratio is None else f"{median_ratio:.2f}",
            "" if above is None else f"{above:.2f}",
            us(bf.min("cpu")) if bf else "n/a", us(rb.min("cpu")) if rb else "n/a",
            "" if cpu_ratio is None else f"{cpu_ratio:.2f}",
            r.target_text(), r.verdict(),
        ])
    return lines


def render_incommand(results: list[CellResult]) -> str:
    table = render_lines(incommand_lines(results), (0, 1, 14, 15))
    notes = [
        "Time inside the command from INFO commandstats (usec ÷ calls, ÷ items for ×100 "
        "commands); CPU: the server's",
        "user+sys time from INFO cpu over the same run (parsing and replying included), per "
        "call or item. ÷RB: redis-bf's minimum",
        "÷ RedisBloom's minimum; the first target applies to it. Above floor ÷RB: the same "
        "ratio of each server's time above its own",
        "BF.CARD (the module-call floor), per call, or per item less the floor ÷ 100 for ×100 "
        "cells; the target \"above\" applies to it.",
        "FAST rows: redis-bf's LAYOUT FAST filter against RedisBloom's; WINDOW and TIMESPAN "
        "rows: a filter or sketch that forgets against RedisBloom's classic one.",
    ]
    for get in (r for r in results if r.cell.sanity and r.verdict() == "MISS"):
        notes.insert(0, f"WARNING: {get.cell.title}: GET ÷ GET = {get.ratio():.3f} is more than "
                        f"{GET_SANITY:.0%} off 1.00: the servers were not equally placed; "
                        "every ratio measured on them is suspect.")
    return table + "\n" + "\n".join(notes)


def csv_records(rows: list[Row]):
    """Every measured value, then every ratio (the table's and the targets'), with the target
    and verdict where one applies."""
    def spec(t: Target) -> str:
        return {"within": "±"}.get(t.op, t.op) + f"{t.limit:g}"

    for row in rows:
        depth = row.pipeline or ""
        stat = "median" if row.section == "throughput" else ""
        absolute = {t.subject: t for t in row.targets if t.ref is None}
        for name, value in row.values.items():
            if value is not None:
                t = absolute.get(name)
                yield [row.section, row.title, name, depth, stat, value, row.unit,
                       spec(t) if t else "", t.verdict(row.values) if t else ""]
        for name, value in row.raw.items():
            yield [row.section, row.title, name, depth, stat, value, "rps", "", ""]
        relative = {(t.subject, t.ref): t for t in row.targets if t.ref}
        pairs = [("redis-bf", "RedisBloom")] + [(v, b) for b in row.baselines for v in VARIANTS]
        for subject, ref in dict.fromkeys(pairs + list(relative)):
            a, b = row.values.get(subject), row.values.get(ref)
            if a is None or not b:
                continue
            t = relative.get((subject, ref))
            yield [row.section, row.title, f"{subject}/{ref}", depth, stat, a / b, "ratio",
                   spec(t) if t else "", t.verdict(row.values) if t else ""]


def incommand_records(results: list[CellResult]):
    """Per cell and server: min, median and max of the in-command time, of the server CPU
    and of the main thread's CPU, and the calls of one run; then the ratios."""
    for r in results:
        cell, unit = r.cell, r.cell.unit.replace("µs", "usec")
        bf_name = f"redis-bf {TWINS[cell.twin][1]}" if cell.twin else "redis-bf"
        for server in SERVERS:
            s = r.stats[server]
            name = bf_name if server == "redis-bf" else server
            if s is None:
                yield ["in-command", cell.title, name, PIPELINE, "min", "n/a", unit, "", ""]
                continue
            for attr, label in (("usec", "in-command"), ("cpu", "CPU"),
                                ("main_cpu", "main-thread CPU")):
                for stat in ("min", "median", "max"):
                    value = getattr(s, stat)(attr)
                    if value is not None:
                        yield ["in-command", cell.title, name, PIPELINE, f"{label} {stat}",
                               value, unit, "", ""]
            yield ["in-command", cell.title, name, PIPELINE, "rounds", len(s.samples), "", "", ""]
            yield ["in-command", cell.title, name, PIPELINE, "calls per round",
                   s.samples[0].calls, "", "", ""]
        for stat, attr, label in (("min", "usec", "in-command min"),
                                  ("median", "usec", "in-command median"),
                                  ("min", "cpu", "CPU min")):
            value = r.ratio(stat, attr)
            judged = label == "in-command min"
            yield ["in-command", cell.title, f"{bf_name}/RedisBloom", PIPELINE, label,
                   "n/a" if value is None else value, "ratio",
                   r.target_text() if judged else "", r.verdict() if judged else ""]
        above = r.above_floor_ratio()
        if above is not None:
            met = r.above_floor_met()
            yield ["in-command", cell.title, f"{bf_name}/RedisBloom", PIPELINE,
                   "in-command min above the BF.CARD floor", above, "ratio",
                   "" if met is None else f"≤{cell.above_target:.2f}",
                   "" if met is None else "PASS" if met else "MISS"]


def write_csv(results: list[CellResult], rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["section", "workload", "variant", "pipeline", "statistic", "value",
                         "unit", "target", "verdict"])
        for record in [*incommand_records(results), *csv_records(rows)]:
            writer.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in record])


def import_matplotlib():
    """matplotlib from target/bench-python, installed there with pip on first use."""
    sys.path.insert(0, str(PYTHON_DEPS))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        log(f"installing matplotlib into {PYTHON_DEPS}")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target",
                        str(PYTHON_DEPS), "matplotlib"], check=True)
        # The import above cached target/bench-python's listing from before the install.
        importlib.invalidate_caches()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


BAR_COLOURS = {"redis-bf": "#c0392b", "RedisBloom": "#2e86c1", "fast": "#f39c12",
               "baseline": "#7f8c8d", "second baseline": "#d5d8dc"}


def target_style(t: Target, row: Row) -> tuple[str, str]:
    """Line style and legend text of a target marker: what the target compares against."""
    if t.ref == "RedisBloom":
        return "dashed", "target vs RedisBloom"
    if t.ref == row.baselines[0]:
        return "solid", "target vs baseline"
    return "dotted", "target vs 2nd baseline"


VERDICT_COLOURS = {"PASS": "#27ae60", "MISS": "#c0392b", "": "#7f8c8d", "n/a": "#7f8c8d"}


def incommand_panel(ax, results: list[CellResult], title: str) -> None:
    """One horizontal bar per cell: redis-bf ÷ RedisBloom of the minimum in-command times
    (lower is better), coloured by verdict, a dot at the ratio of the medians, and the target
    as a black tick."""
    shown = list(reversed(results))
    for y, r in enumerate(shown):
        ratio, median = r.ratio(), r.ratio("median")
        if ratio is None:
            ax.text(0.02, y, "n/a (redis-bf lacks the command)", va="center", fontsize=7)
            continue
        ax.barh(y, ratio, 0.7, color=VERDICT_COLOURS[r.verdict()], edgecolor="black",
                linewidth=0.4)
        if median is not None:
            ax.plot(median, y, "o", color="black", markersize=3)
        bf, rb = r.stats["redis-bf"].min(), r.stats["RedisBloom"].min()
        ax.text(max(ratio, median or 0) + 0.02, y,
                f"{ratio:.2f}  ({bf:.3f} vs {rb:.3f} µs/{'item' if r.cell.items > 1 else 'call'})",
                va="center", fontsize=7)
        if r.cell.target is not None:
            ax.vlines(r.cell.target, y - 0.45, y + 0.45, colors="black", linewidth=2)
        if r.cell.sanity:
            ax.vlines([1 - GET_SANITY, 1 + GET_SANITY], y - 0.45, y + 0.45, colors="black",
                      linewidth=1.5, linestyles="dotted")
    ax.axvline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([r.cell.title for r in shown], fontsize=7.5)
    ax.set_ylim(-0.6, len(shown) - 0.4)
    # Room on the right for the text after the bar or dot that reaches furthest.
    ax.set_xlim(0, max([1.6] + [max(r.ratio() or 0, r.ratio("median") or 0) + 0.75
                                for r in shown]))
    ax.set_xlabel("redis-bf ÷ RedisBloom, in-command time, minimum of the rounds (lower is "
                  "better); black tick: target; dot: ratio of medians; green pass, red miss")
    ax.set_title(title, fontsize=10)


def write_chart(results: list[CellResult], rows: list[Row], path: Path, title: str) -> None:
    """The in-command ratios on top (the primary figure), then the throughput panel, each
    where the run measured it."""
    plt = import_matplotlib()
    groups = [row for row in rows if row.section == "throughput"]
    heights = ([max(3.0, 0.32 * len(results))] if results else []) + ([7.5] if groups else [])
    if not heights:
        return
    fig, axes = plt.subplots(len(heights), 1, dpi=110, squeeze=False,
                             figsize=(max(13.0, 1.35 * len(groups)), sum(heights)),
                             gridspec_kw={"height_ratios": heights})
    axes = list(axes[:, 0])
    if results:
        incommand_panel(axes.pop(0), results, f"In-command time: {title}")
    if groups:
        throughput_panel(axes.pop(0), groups, f"Throughput (secondary): {title}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def throughput_panel(ax, groups: list[Row], title: str) -> None:
    """Grouped bars, one group per throughput row, each bar relative to the row's baseline;
    each target is a short black line across the bar it judges."""
    width = 0.18
    labelled = set()

    def once(label: str) -> str | None:
        """A legend entry for the first mark of each kind only."""
        if label in labelled:
            return None
        labelled.add(label)
        return label

    for x, row in enumerate(groups):
        base = row.values[row.baselines[0]]
        bars = [(v, v) for v in VARIANTS if row.values.get(v) is not None]
        bars += [(b, "second baseline" if n else "baseline") for n, b in enumerate(row.baselines)]
        offsets = {}
        for n, (name, kind) in enumerate(bars):
            offsets[name] = offset = x + (n - (len(bars) - 1) / 2) * width
            height = row.values[name] / base
            legend = {"baseline": "baseline (named under each group)",
                      "second baseline": f"{name} (2nd baseline)"}.get(kind, kind)
            ax.bar(offset, height, width, color=BAR_COLOURS[kind], edgecolor="black",
                   linewidth=0.4, label=once(legend))
            ax.text(offset, height + 0.02, f"{height:.2f}", ha="center", va="bottom",
                    fontsize=6.5, rotation=90)
        for t in row.targets:
            ref = row.values.get(t.ref)
            if t.subject in offsets and ref is not None:
                style, legend = target_style(t, row)
                ax.hlines(t.limit * ref / base, offsets[t.subject] - width * 0.7,
                          offsets[t.subject] + width * 0.7, colors="black", linewidth=2,
                          linestyles=style, label=once(legend))
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([textwrap.fill(r.title, 16) + f"\n-P{r.pipeline} vs {r.baselines[0]}"
                        for r in groups], fontsize=7.5)
    ax.set_ylabel("throughput relative to the baseline (baseline = 1.0)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", ncol=4)
    ax.margins(x=0.01)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.1)
