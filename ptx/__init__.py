"""Handwritten PTX kernels of nvfp4rt (installed as the package data ``nvfp4rt._ptx``)."""
