module perflab.dev/keeper

go 1.21
