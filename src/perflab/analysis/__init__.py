"""The lab's arithmetic, pure and at the bottom of the package: statistics of a cell (stats), the
95 % interval of a ratio of two apps (ratios_ci), the steady-state rule (steadystate), change points
in a series of runs (changepoints), how many verdicts chance alone gives (chance), the host-speed
canary's arithmetic (host_speed) and the memory an app needs from memneeds' steps (memory_need)."""
