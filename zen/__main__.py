from zen.cli.entry import main

raise SystemExit(main())
