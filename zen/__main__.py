from zen.cli import main

raise SystemExit(main())
