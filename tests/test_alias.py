"""The opt-in alias: ``python -m tvmlite script.py`` runs classic ``import tvm`` code."""
import subprocess
import sys
import textwrap


def _run(tmp_path, code: str, *args):
    script = tmp_path / "classic.py"
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, "-m", "tvmlite", str(script), *args],
                          capture_output=True, text=True, timeout=120)


def test_alias_resolves_to_the_same_module_objects(tmp_path):
    r = _run(tmp_path, """
        import sys
        import tvm
        from tvm import te
        import tvm.te
        import topi
        from tvm.contrib import utils
        import tvmlite
        assert tvm is tvmlite, tvm
        assert te is tvmlite.te and tvm.te is te
        assert topi is tvmlite.topi
        assert utils is tvmlite.contrib.utils
        assert sys.modules["tvm.te"] is tvmlite.te
        assert tvmlite.__spec__.name == "tvmlite"
        print("ARGS", sys.argv[1:])
    """, "x", "--flag")
    assert r.returncode == 0, r.stderr
    assert "ARGS ['x', '--flag']" in r.stdout


def test_alias_not_installed_by_default():
    r = subprocess.run([sys.executable, "-c", "import tvmlite, importlib.util;"
                        "print(importlib.util.find_spec('tvm') is None)"],
                       capture_output=True, text=True)
    assert r.stdout.strip() == "True"


def test_alias_reports_script_errors(tmp_path):
    r = _run(tmp_path, "import tvm\nraise SystemExit(3)\n")
    assert r.returncode == 3


def test_alias_missing_submodule_is_import_error(tmp_path):
    r = _run(tmp_path, """
        try:
            import tvm.no_such_module
        except ImportError:
            print("ok")
    """)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
