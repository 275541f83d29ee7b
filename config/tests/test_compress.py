"""django-compressor offline, as production runs it (`manage.py compress` at deploy time): every
{% compress %} block of the respondent and staff templates is found, blocks inside {% if %} and
{% block %} included, so no page meets a block missing from the offline manifest."""
import json
import os
import subprocess
import sys
from pathlib import Path

import rcssmin
import rjsmin

ROOT = Path(__file__).resolve().parents[2]


def test_offline_compression_finds_every_block_and_minifies_every_file_they_name(tmp_path):
    # In a process of its own, on the test settings' file storage, into tmp_path (COMPRESS_ROOT is
    # STATIC_ROOT): compressor keeps its storages and manifest for the life of a process.
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "STATIC_ROOT": str(tmp_path)}
    output = subprocess.run([sys.executable, str(ROOT / "manage.py"), "compress", "--force"], cwd=ROOT,
                            env=environment, capture_output=True, text=True, check=True).stdout
    # taking/base.html (css), take.html and login.html (js), staff/base.html (css, js), and the
    # progress bar's script inside {% if %} in roster_detail.html and slips_detail.html (one same block).
    assert "Compressed 6 block(s)" in output
    assert len(json.loads((tmp_path / "CACHE" / "manifest.json").read_text())) == 6
    compressed = {".css": [], ".js": []}
    for path in (tmp_path / "CACHE").rglob("output.*"):
        compressed[path.suffix].append(path.read_text())
    # Each file is in an output, minified (one block's files are joined: staff/base.html's two stylesheets).
    for source in ["taking/static/taking/survey.js", "taking/static/taking/login.js", "staff/static/staff/progress.js",
                   "staff/static/staff/staff.js", "taking/static/taking/survey.css", "staff/static/staff/staff.css"]:
        text = (ROOT / source).read_text()
        minified = (rjsmin.jsmin(text) if source.endswith(".js") else rcssmin.cssmin(text)).strip()
        assert len(minified) < len(text) and any(minified in output for output in compressed[Path(source).suffix]), source
    assert all("/*" not in text for texts in compressed.values() for text in texts)  # minified
