#!/usr/bin/env python3
"""Checks an HTML report of `ttlplan plan|cost|tune --html` in a real browser.

    check_page.py --ttlplan T --work DIR --chromium C -- COMMAND FILE [ARGS...]

Runs `ttlplan COMMAND FILE ARGS --html DIR/page.html --json DIR/report.json`, then:
  1. headless Chromium loads the page and dumps its DOM; the DOM must hold the pictures the
     JSON report calls for, counted from the JSON (not from the page): one rectangle per CB in the
     L1 map, one cell per core of the device grid in each core grid, one sender per multicast
     net, one sub-block per DST round drawn, and for tune one dot per feasible point, the pick
     and the Pareto line;
  2. Chromium takes a screenshot, which must not be blank (decoded here: enough pixels that are
     not the background);
  3. xmllint accepts every <svg> of the page as XML on its own.
Exit 0 when all hold; 1 with the reasons otherwise.
"""
import argparse
import html.parser
import json
import os
import re
import struct
import subprocess
import sys
import zlib


class Dom(html.parser.HTMLParser):
    """Counts elements by (tag, class) inside each <svg> class."""

    def __init__(self):
        super().__init__()
        self.svg = []  # stack of the enclosing svg's class
        self.counts = {}  # (svg class, tag, class) -> count
        self.svgs = {}  # svg class -> count

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svg.append(a.get("class", ""))
            self.svgs[a.get("class", "")] = self.svgs.get(a.get("class", ""), 0) + 1
            return
        if self.svg:
            for c in (a.get("class") or "").split() or [""]:
                key = (self.svg[-1], tag, c)
                self.counts[key] = self.counts.get(key, 0) + 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.svg.pop()

    def handle_endtag(self, tag):
        if tag == "svg" and self.svg:
            self.svg.pop()

    def count(self, svg, tag, cls):
        return self.counts.get((svg, tag, cls), 0)


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour})")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def ink_share(path):
    """Share of pixels that differ from the top-left (background) pixel."""
    width, height, rows, bpp = png_pixels(path)
    background = rows[0][:3]
    ink = 0
    for line in rows:
        for x in range(0, width * bpp, bpp):
            if line[x:x + 3] != background:
                ink += 1
    return ink / float(width * height)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ttlplan", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--xmllint", default="xmllint")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    if len(rest) < 2:
        ap.error("give COMMAND FILE [ARGS...] after --")
    command = rest[0]
    os.makedirs(args.work, exist_ok=True)
    page = os.path.join(args.work, "page.html")
    report = os.path.join(args.work, "report.json")
    run = subprocess.run([args.ttlplan] + rest + ["--html", page, "--json", report],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        print(run.stdout)
        print(f"ttlplan exited {run.returncode}")
        return 1
    data = json.load(open(report))
    errors = []

    if "--target" in rest and rest[rest.index("--target") + 1] == "pto":
        found, dom = pto_expectations(args, command, rest, data)
        return finish(args, page, errors + found, command, rest, dom)

    # The device grid, from the device description (the same --device as the command).
    device = "wormhole_b0"
    if "--device" in rest:
        device = rest[rest.index("--device") + 1]
    devices = json.loads(subprocess.run([args.ttlplan, "devices", "--json"], check=True,
                                        stdout=subprocess.PIPE, text=True).stdout)
    grid = [d for d in devices if d["name"] == device][0]["grid"]["compute"]
    cores = grid[0] * grid[1]  # [rows, columns]

    chrome = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(args.work, "profile")]
    url = "file://" + os.path.abspath(page)
    dom_text = subprocess.run(chrome + ["--dump-dom", url], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, timeout=120).stdout
    if "<svg" not in dom_text:
        errors.append("Chromium's DOM holds no <svg> (did the page load?)")
    dom = Dom()
    dom.feed(dom_text)

    # What the JSON calls for. `plan` and `tune` write the plan JSON; `cost` its own, whose plan
    # is in the page only, so for cost the expectations come from `ttlplan plan --json` of the
    # same input.
    plan = plan_of(args, command, rest, data)
    if command == "tune":
        # The page shows the pick's plan; the tune JSON has the points' counts.
        if dom.count("tune-scatter", "circle", "point") != data["feasible"]:
            errors.append(f"scatter: {dom.count('tune-scatter', 'circle', 'point')} dots, "
                          f"{data['feasible']} feasible points")
        if dom.count("tune-scatter", "circle", "pick") != 1:
            errors.append("scatter: the pick is not marked once")
        if dom.count("tune-scatter", "polyline", "pareto") != 1:
            errors.append("scatter: no Pareto line")
        if ("baseline" in data) != (dom.count("tune-scatter", "polygon", "baseline") == 1):
            errors.append("scatter: ttnn's default is marked iff the JSON has a baseline")
    else:
        kernels = plan["kernels"]
        cbs = sum(len(k["cbs"]) for k in kernels)
        if dom.count("l1-map", "rect", "cb") != cbs:
            errors.append(f"L1 map: {dom.count('l1-map', 'rect', 'cb')} CB rectangles, "
                          f"the plan has {cbs} CBs")
        if dom.svgs.get("core-grid", 0) != len(kernels):
            errors.append(f"{dom.svgs.get('core-grid', 0)} core grids for {len(kernels)} kernels")
        if dom.count("core-grid", "rect", "core") != cores * len(kernels):
            errors.append(f"core grid: {dom.count('core-grid', 'rect', 'core')} cells, "
                          f"expected {cores} per kernel")
        busy = 0
        for k in kernels:
            work = k["cores"]["work"]
            busy += (sum(1 for r in work["ranges"] if r["count"] > 0) if work
                     else k["cores"]["grid"][0] * k["cores"]["grid"][1])
        if dom.count("core-grid", "rect", "busy") != busy:
            errors.append(f"core grid: {dom.count('core-grid', 'rect', 'busy')} busy cells, "
                          f"the plan has {busy} busy cores")
        nets = sum(len(k["multicast"]["nets"]) for k in kernels)
        if dom.count("multicast-grid", "circle", "sender") != nets:
            errors.append(f"multicast: {dom.count('multicast-grid', 'circle', 'sender')} senders, "
                          f"the plan has {nets} nets")
        rects = sum(len(n["rectangles"]) for k in kernels for n in k["multicast"]["nets"])
        if dom.count("multicast-grid", "rect", "mcast-rect") != rects:
            errors.append(f"multicast: {dom.count('multicast-grid', 'rect', 'mcast-rect')} "
                          f"rectangles, the plan has {rects}")
        subblocks = 0
        for k in kernels:
            for c in k["dst"]:
                for s in c["segments"]:
                    rows, cols = s.get("block", c["block"])
                    h, w = s["subblock"]
                    subblocks += -(-rows // h) * -(-cols // w)
        if dom.count("dst-chain", "rect", "subblock") != subblocks:
            errors.append(f"DST: {dom.count('dst-chain', 'rect', 'subblock')} sub-blocks drawn, "
                          f"the plan's segments cover {subblocks}")
        if command == "cost" and dom.svgs.get("cost-bars", 0) != len(kernels):
            errors.append("cost: no cost breakdown per kernel")
        tradeoffs = sum(len(k.get("tradeoffs", k.get("cost", {}).get("tradeoffs", [])))
                        for k in data["kernels"])
        if dom_text.count("<li><b>") < tradeoffs:
            errors.append(f"fewer trade-off items than the {tradeoffs} in the JSON")

    return finish(args, page, errors, command, rest, dom)


def plan_of(args, command, rest, data):
    """The plan JSON behind the page: the report itself, but for `cost`, whose JSON is its own,
    `ttlplan plan --json` of the same input."""
    if command != "cost":
        return data
    plan_json = os.path.join(args.work, "plan.json")
    subprocess.run([args.ttlplan, "plan"] + rest[1:] + ["--json", plan_json], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.load(open(plan_json))


def load_dom(args, page):
    """Chromium's DOM of the page, parsed, and its text."""
    chrome = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(args.work, "profile")]
    url = "file://" + os.path.abspath(page)
    dom_text = subprocess.run(chrome + ["--dump-dom", url], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, timeout=120).stdout
    dom = Dom()
    dom.feed(dom_text)
    return dom, dom_text


def pto_expectations(args, command, rest, data):
    """`--target pto` pages: one rectangle per slot in the memory maps (counted from the plan
    JSON), and with cost one bar per busy pipe of each kernel (from the cost JSON)."""
    errors = []
    dom, dom_text = load_dom(args, os.path.join(args.work, "page.html"))
    if "<svg" not in dom_text:
        errors.append("Chromium's DOM holds no <svg> (did the page load?)")
    plan = plan_of(args, command, rest, data)
    if command == "cost":
        bars = sum(1 for k in data["kernels"] for c in k["pipe_cycles_per_item"].values() if c > 0)
        if dom.count("pto-pipe-bars", "rect", "pipe") != bars:
            errors.append(f"pipes: {dom.count('pto-pipe-bars', 'rect', 'pipe')} bars, the cost "
                          f"JSON has {bars} busy pipes")
    slots = sum(b["slots"] for k in plan["kernels"] for b in k["buffers"])
    if dom.count("pto-memory-map", "rect", "slot") != slots:
        errors.append(f"memory map: {dom.count('pto-memory-map', 'rect', 'slot')} slots drawn, "
                      f"the plan has {slots}")
    memories = sum(len(k["memories"]) for k in plan["kernels"])
    if dom.count("pto-memory-map", "rect", "free") != memories:
        errors.append(f"memory map: {dom.count('pto-memory-map', 'rect', 'free')} memory rows, "
                      f"the plan has {memories}")
    return errors, dom


def finish(args, page, errors, command, rest, dom=None):
    """The checks every page gets (XML, a screenshot), then the verdict."""
    chrome = [args.chromium, "--headless", "--no-sandbox", "--disable-gpu",
              "--disable-dev-shm-usage", "--user-data-dir=" + os.path.join(args.work, "profile")]
    url = "file://" + os.path.abspath(page)
    if dom is None:
        dom, _ = load_dom(args, page)
    # Every picture is well-formed XML on its own.
    text = open(page, encoding="utf-8").read()
    svgs = re.findall(r"<svg\b.*?</svg>", text, flags=re.S)
    if not svgs:
        errors.append("the page has no <svg>")
    for i, svg in enumerate(svgs):
        lint = subprocess.run([args.xmllint, "--noout", "-"], input=svg, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if lint.returncode != 0:
            errors.append(f"xmllint rejects svg {i + 1}: {lint.stdout.strip()[:500]}")
        elif "<title>" not in svg:
            errors.append(f"svg {i + 1} has no <title>")

    # A screenshot that is not blank.
    shot = os.path.join(args.work, "page.png")
    if os.path.exists(shot):
        os.remove(shot)
    subprocess.run(chrome + ["--screenshot=" + shot, "--window-size=1100,1600",
                             "--hide-scrollbars", url],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    if not os.path.exists(shot):
        errors.append("Chromium wrote no screenshot")
    else:
        share = ink_share(shot)
        if share < 0.02:
            errors.append(f"the screenshot is blank ({share:.1%} of its pixels are not background)")

    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print(f"ok: {command} page of {rest[1]}: {sum(dom.svgs.values())} pictures")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
