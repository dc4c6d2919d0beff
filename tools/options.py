"""Command-line options the gmx tools take at most once, as mlir-opt's
(`-o`, `--pass-pipeline`): a second one is an error, never "the last
wins" (which would silently write elsewhere than the first said)."""

from __future__ import annotations

import argparse


class StoreOnce(argparse.Action):
    """`store`, refusing the option when it was given already."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, self.dest + "_given", False):
            parser.error(f"option '{option_string}' may be given only once")
        setattr(namespace, self.dest + "_given", True)
        setattr(namespace, self.dest, values)
