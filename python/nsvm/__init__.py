"""nsvm: scikit-learn estimators backed by nsvm's Go library.

NSVMClassifier, NSVMRegressor and NSVMOneClass fit what nsvm train fits (the
same data and seed give the same model file, byte for byte) through the
library's C ABI; load reads a model file back into an estimator.
"""

from ._estimators import (
    NSVMChanceLevelWarning,
    NSVMClassifier,
    NSVMOneClass,
    NSVMRegressor,
    load,
)
from ._lib import FitStopped, library_path

__all__ = ["NSVMClassifier", "NSVMRegressor", "NSVMOneClass", "NSVMChanceLevelWarning", "FitStopped", "load", "library_path"]
__version__ = "0.1.0"
