"""The three studies as data: their published figures (claims), RT-2019's full tables (curves),
the figures its sentences print (attributes) and 2048 MB table (projection), where they contradict themselves
and what could not be transcribed (conflicts), what they state in words (worded), and the settings each one
used (methods); LAB-2020's developer-loop claims and the verdict a run gives each (devloop_claims), and
RT-2019's and KT-2020's worded conclusions judged the same way (stated_claims)."""

from perflab.present.published import attributes, curves, projection, worded
from perflab.present.published.claim_types import Claim, Where
from perflab.present.published.claims import CLAIMS, COST_STUDY, PUBLISHED_SAVINGS, RT2019_BUDGET_MB, claim
from perflab.present.published.conflicts import (CONTRADICTIONS, NOT_TRANSCRIBED, Contradiction, Untranscribed,
                                                 contradiction_rows)
from perflab.present.published.methods import METHODS, STUDY_PLANS, Setting
from perflab.present.published.studies import STUDIES, TARGETS, Study, target_of

__all__ = ["CLAIMS", "COST_STUDY", "PUBLISHED_SAVINGS", "RT2019_BUDGET_MB", "STUDIES", "TARGETS", "Claim", "Study", "Where", "claim",
           "target_of", "CONTRADICTIONS", "NOT_TRANSCRIBED", "Contradiction", "Untranscribed", "contradiction_rows", "METHODS",
           "STUDY_PLANS", "Setting", "attributes", "curves", "projection", "worded"]
