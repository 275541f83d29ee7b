"""The lab drill's faults (bench/lab_drill.py: inject) when the lab has no one for them to fall on."""
import pytest

from bench import lab_drill


@pytest.fixture
def lab(monkeypatch):
    """A lab drill whose lab is not reached: no leader, no Redis primary; its commands recorded instead of done."""
    drill = lab_drill.LabDrill.__new__(lab_drill.LabDrill)
    drill.addresses = {"pg1": "10.0.0.1", "cache1": "10.0.0.5"}
    drill.commands = []
    monkeypatch.setattr(drill, "members", lambda avoid=None: {}, raising=False)
    monkeypatch.setattr(drill, "leader_name", lambda other_than=None, seconds=90: None, raising=False)
    monkeypatch.setattr(drill, "command", lambda *args: drill.commands.append(args) or "", raising=False)
    monkeypatch.setattr(lab_drill.lab_hosts, "sentinel_primary", lambda: None)
    monkeypatch.setattr(lab_drill.time, "sleep", lambda seconds: None)
    return drill


@pytest.mark.parametrize("fault, missing", [("leader-kill", "no leader"), ("leader-partition", "no leader"),
                                            ("redis-primary", "no Redis primary"), ("memcached", "no Redis primary")])
def test_a_fault_with_no_leader_or_primary_to_fall_on_stops_the_drill_saying_so_and_touches_no_host(
        lab, fault, missing):
    with pytest.raises(RuntimeError, match=missing):
        lab_drill.inject(lab, fault, {})
    assert lab.commands == []
