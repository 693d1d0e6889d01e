"""About and references: what the app is, the four sources it rests on, and its threat model.

The glossary of symbols is added under this page (open) by the router, as under every page.
"""

from __future__ import annotations

import streamlit as st

#: (citation in Markdown, what the app takes from it). Details checked against the papers'
#: own title pages and public records; a venue that could not be checked is left out.
REFERENCES: tuple[tuple[str, str], ...] = (
    (
        "Hu, J., Drechsler, J. and Kim, H. J. (2021). *Accuracy gains from privacy "
        "amplification through sampling for differential privacy.* arXiv preprint "
        "[arXiv:2103.09705](https://arxiv.org/abs/2103.09705).",
        "The amplification theorem for simple random samples, the noise ratio r and the "
        "allowance q, the mean and median experiments (Amplification, Mean & median gains).",
    ),
    (
        "Bun, M., Drechsler, J., Gaboardi, M., McMillan, A. and Sarathy, J. *Controlling "
        "privacy loss in sampling schemes: an analysis of stratified and cluster sampling.* "
        "arXiv preprint [arXiv:2007.12674](https://arxiv.org/abs/2007.12674) (first "
        "version 2020, titled *Controlling privacy loss in survey sampling*).",
        "Cluster sampling bounds, Neyman and proportional allocation, randomised rounding "
        "(Cluster sampling, Stratified sampling).",
    ),
    (
        "Steinke, T. (2025). *Limits of privacy amplification by subsampling.* "
        "DifferentialPrivacy.org, 21 April 2025, "
        "<https://differentialprivacy.org/subsampling-limits/>.",
        "The ratio p·ε_p/ε and the regime ε = c·p with its floor (Amplification).",
    ),
    (
        "Breutigam, D. and Reischuk, R. (2025). *Statistical privacy.* arXiv preprint "
        "[arXiv:2501.12893](https://arxiv.org/abs/2501.12893).",
        "Privacy curves of property queries against an adversary who knows only the data "
        "distribution (Statistical privacy).",
    ),
)

st.title("About and references")
st.info(
    "A teaching and analysis tool. It computes what the formulas and simulations of four "
    "research papers imply for a population you choose; it does not release real private "
    "statistics.",
    icon=":material/school:",
)

st.markdown(
    """
**The question.** An agency holds the whole population. Can it release a *more accurate*
private statistic by first drawing a secret random sample and privatising that instead?
Drawing a secret sample amplifies privacy: a mechanism run on the sample may spend a
larger budget ε_sample while the population still gets the promised guarantee ε_target.
Whether that larger budget buys accuracy depends on the statistic, the sampling design
and the size of the sample, and each page shows one part of that answer:

- **Population** — the data every page uses: a built-in population or your CSV.
- **Amplification** — how much budget a sample of a given rate allows, and its limits.
- **Mean & median gains** — when the sample's private mean or median beats the
  population's.
- **Cluster sampling** and **Stratified sampling** — designs that survey agencies use,
  where the amplification can shrink, vanish or even turn into a loss.
- **Statistical privacy** — a weaker adversary who knows only how the data were generated.

Every control is kept in the page address, so a copied link opens the same view.
"""
)

st.header("References")
st.markdown(
    "\n".join(
        f"{i}. {citation}  \n   *Used for:* {use}"
        for i, (citation, use) in enumerate(REFERENCES, start=1)
    )
)

st.header("Threat model, in plain words")
st.markdown(
    """
- **What the guarantees mean.** ε_target and δ_target describe how much any one person's
  record can change what is released, *if* the sample is drawn secretly and at random as
  the page assumes. If the adversary learns who was sampled, the amplification is gone and
  only ε_sample protects the sampled people.
- **What the app does not do.** Its random numbers are for simulation, not protection: do
  not use its outputs as real private releases.
- **Your uploaded file** is read as text (never run as code), stays in the memory of the
  browser tab that uploaded it, and is never put into a link: a reload or a shared link
  falls back to a built-in population. Uploads are limited in size.
- **Downloads.** CSV downloads defuse cells that a spreadsheet would run as a formula.
"""
)

st.header("Glossary")
st.markdown("Every symbol used on the pages is explained in the glossary below.")
