"""The load side's own limit: on two CPUs the driver and the database share one, and when it is
nearly all busy while the app still has CPU to spare, the app's figure is a lower bound."""

from __future__ import annotations

from perflab.drivers.base import assess_load_side


def test_a_busy_shared_load_cpu_with_an_app_to_spare_caps_the_figure():
    bound, why = assess_load_side(4.0, 5.5, 10.0, [1], [1], app_cpu_share=0.8, app_cpus=1.0)
    assert bound and "95%" in why and "80%" in why


def test_an_app_using_its_whole_cpu_is_its_own_limit_however_busy_the_load_side():
    assert assess_load_side(4.0, 5.5, 10.0, [1], [1], app_cpu_share=0.99, app_cpus=1.0) == (False, "")


def test_a_quiet_load_side_is_no_limit():
    assert not assess_load_side(2.0, 3.0, 10.0, [1], [1], app_cpu_share=0.5, app_cpus=1.0)[0]


def test_a_driver_and_database_on_cpus_of_their_own_are_judged_elsewhere():
    # the driver's own CPU limit is assess_driver_bound's; here they share nothing
    assert not assess_load_side(9.5, 9.5, 10.0, [1], [2], app_cpu_share=0.5, app_cpus=1.0)[0]


def test_the_share_is_of_every_cpu_the_two_use_and_of_the_apps_quota():
    # two shared CPUs, 19 CPU-seconds in 10 s: 95 %; an app with a 2-CPU quota using 1.2 CPUs: 60 %
    assert assess_load_side(9.0, 10.0, 10.0, [1, 2], [1, 2], app_cpu_share=1.2, app_cpus=2.0)[0]
    assert not assess_load_side(9.0, 10.0, 10.0, [1, 2], [1, 2], app_cpu_share=1.9, app_cpus=2.0)[0]
