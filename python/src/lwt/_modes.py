"""Signal-extension modes with PyWavelets' names, numbers and conversion rules."""
import warnings

__all__ = ["Modes"]

# PyWavelets' deprecated short names, accepted with the same DeprecationWarning.
_OLD_NAMES = {"zpd": "zero", "cpd": "constant", "sym": "symmetric", "ppd": "periodic",
              "sp1": "smooth", "per": "periodization"}


class Modes:
    """The nine modes of PyWavelets, with its integer codes (pywt.Modes.<name>)."""
    zero = 0
    symmetric = 1
    constant = 2
    smooth = 3
    periodic = 4
    periodization = 5
    reflect = 6
    antisymmetric = 7
    antireflect = 8
    modes = ["zero", "constant", "symmetric", "periodic", "smooth", "periodization",
             "reflect", "antisymmetric", "antireflect"]

    @staticmethod
    def from_object(mode):
        """The integer code of a mode name or code, as pywt.Modes.from_object."""
        if isinstance(mode, int) and not isinstance(mode, bool):
            if not 0 <= mode <= 8:
                raise ValueError("Invalid mode.")
            return mode
        if isinstance(mode, str):
            if mode in _OLD_NAMES:
                warnings.warn(f"{mode} has been renamed to {_OLD_NAMES[mode]} and will be unavailable "
                              "in a future version of pywt.", DeprecationWarning, stacklevel=2)
                mode = _OLD_NAMES[mode]
            if mode not in Modes.modes:
                raise ValueError(f"Unknown mode name '{mode}'.")
            return getattr(Modes, mode)
        raise TypeError(f"attribute name must be string, not '{type(mode).__name__}'")


_NAME_OF_CODE = {getattr(Modes, name): name for name in Modes.modes}


def mode_name(mode):
    """The name liblwt knows a mode by (PyWavelets' name), from a name or code."""
    return _NAME_OF_CODE[Modes.from_object(mode)]
