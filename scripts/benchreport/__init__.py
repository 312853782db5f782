"""The steps of scripts/bench-report, one job a module:

    common    paths, modes, implementation names, logging, formatting helpers
    collect   build and run the bench targets (criterion, paired, portable)
    command   time the utf8guard command against its peers
    results   read the results back; the paired comparisons' statistics
    goals     judge the speed goals
    sections  the report's Markdown tables, section by section
    svg       draw docs/benchmarks.svg
    render    write docs/BENCHMARKS.md (and the figure)
    readme    rewrite the README's headline table
    main      the command line: run the steps in order
"""
