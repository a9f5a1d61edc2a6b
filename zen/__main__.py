try:
    from zen.cli.entry import main
except KeyboardInterrupt:  # Ctrl-C while zen itself loads: no traceback
    raise SystemExit(130) from None

raise SystemExit(main())
