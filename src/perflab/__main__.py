from perflab.cli import main

raise SystemExit(main())
