"""Reading and writing runs: the run model, case files, loaders of run exports, the run store, exports."""
