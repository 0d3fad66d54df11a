# Each module lists its models in __all__; see library.py, study.py and sessions.py.
from studies.models.library import *  # noqa: F403
from studies.models.model_eval import *  # noqa: F403
from studies.models.model_replies import *  # noqa: F403
from studies.models.results import *  # noqa: F403
from studies.models.sessions import *  # noqa: F403
from studies.models.study import *  # noqa: F403
