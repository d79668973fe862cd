from edgehost.cli.main import main

raise SystemExit(main())
