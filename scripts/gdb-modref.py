# gdb helper for modref: load the symbols of loaded modules at their
# section addresses, like Linux's lx-symbols.
#
#   gdb -ex 'target remote localhost:1234' -x scripts/gdb-modref.py build/modref.elf
#
# Sourcing it
#   - defines `modref-symbols [DIR..]`: for every module on the kernel's
#     `modules` list, add-symbol-file its .ko with each loaded section at
#     the address the kernel placed it (struct module.sections);
#   - defines `modref-lsmod`: the list as the kernel sees it;
#   - sets a silent breakpoint on modref_gdb_module_loaded(), which the
#     loader calls just before a module's init, so symbols arrive in time
#     to `break hello_init` before `insmod hello`.
# .ko files are searched in build/modules, the directories given to
# modref-symbols, and $MODREF_MODULE_PATH (colon-separated).
import os

import gdb

search_dirs = ["build/modules"]
search_dirs += [d for d in os.environ.get("MODREF_MODULE_PATH", "").split(":") if d]
loaded = {}  # module name -> image base the symbols were loaded for


def _modules():
    """Yield gdb.Value struct module for each module on the list."""
    mod_type = gdb.lookup_type("struct module")
    off = [f.bitpos // 8 for f in mod_type.fields() if f.name == "list"][0]
    head = gdb.parse_and_eval("&modules")
    node = head["next"]
    char_p = gdb.lookup_type("char").pointer()
    while int(node) != int(head):
        addr = node.cast(char_p) - off
        yield addr.cast(mod_type.pointer()).dereference()
        node = node["next"]


def _find_ko(mod):
    fname = mod["file"].string()
    names = [fname, mod["name"].string() + ".ko"]
    for d in search_dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.path.exists(p):
                return p
    return None


def load_module_symbols(mod):
    name = mod["name"].string()
    base = int(mod["base"])
    if loaded.get(name) == base:
        return
    path = _find_ko(mod)
    if path is None:
        gdb.write("modref: %s: no .ko found in %s\n" % (name, search_dirs))
        return
    secs = {}
    for i in range(int(mod["nsections"])):
        s = mod["sections"][i]
        secs[s["name"].string()] = int(s["addr"])
    text = secs.pop(".text", base)
    cmd = "add-symbol-file %s 0x%x" % (path, text)
    for sname, addr in sorted(secs.items()):
        cmd += " -s %s 0x%x" % (sname, addr)
    gdb.execute(cmd, to_string=True)
    loaded[name] = base
    gdb.write("modref: loaded symbols of %s (%s) at 0x%x\n" % (name, path, text))


class ModrefSymbols(gdb.Command):
    """Load symbols of every loaded modref module: modref-symbols [DIR..]"""

    def __init__(self):
        super().__init__("modref-symbols", gdb.COMMAND_FILES)

    def invoke(self, arg, from_tty):
        for d in gdb.string_to_argv(arg):
            if d not in search_dirs:
                search_dirs.append(d)
        for mod in _modules():
            load_module_symbols(mod)


class ModrefLsmod(gdb.Command):
    """List modref modules: name, state, image base, size."""

    def __init__(self):
        super().__init__("modref-lsmod", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        states = ["COMING", "LIVE", "GOING", "GONE"]
        for mod in _modules():
            st = int(mod["state"])
            gdb.write("%-20s %-6s base 0x%x size %d\n" % (
                mod["name"].string(), states[st] if 0 <= st < 4 else "?",
                int(mod["base"]), int(mod["size"])))


class LoadBreakpoint(gdb.Breakpoint):
    def __init__(self):
        super().__init__("modref_gdb_module_loaded", internal=True)
        self.silent = True

    def stop(self):
        try:
            load_module_symbols(gdb.parse_and_eval("mod").dereference())
        except gdb.error as e:
            gdb.write("modref: cannot load module symbols: %s\n" % e)
        return False  # keep running


ModrefSymbols()
ModrefLsmod()
LoadBreakpoint()
try:
    gdb.execute("modref-symbols", to_string=True)
except gdb.error:
    pass  # not attached yet, or nothing loaded
