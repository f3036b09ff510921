"""Entry point of AutoTVM worker processes: ``python -m tvmlite.autotvm._worker_main``."""
from tvmlite.autotvm.worker import main

if __name__ == "__main__":
    main()
