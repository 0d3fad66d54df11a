# Refit the log odds ratios of this dataset with lme4's glmer, the CHARTOM paper's
# maximum-likelihood model (Appendix C), and print them beside the platform's.
#
#   Rscript replicate_glmer.R            (in the unzipped dataset's folder)
#
# Needs R >= 4.0 and lme4 (install.packages("lme4")). Reads log_odds_trials.csv (one row
# per trial that entered the platform's model) and log_odds_platform.csv (the platform's
# variational-Bayes log odds for the same trials).
suppressPackageStartupMessages(library(lme4))

trials <- read.csv("log_odds_trials.csv", stringsAsFactors = FALSE,
                   colClasses = c(participant = "character", group = "character",
                                  question = "character"))
platform <- read.csv("log_odds_platform.csv", stringsAsFactors = FALSE,
                     colClasses = c(group = "character"))

# One fixed log-odds per group x version cell and no intercept, with crossed random
# intercepts for participant and group:question: the paper's
#   glmer(error ~ group_id:manipulation_type + (1 | student_id) + (1 | group_id:question_id))
# in cell coding, so log OR = beta(manipulated) - beta(non-manipulated).
trials$cell <- factor(paste0(trials$group, "_v", trials$version))
trials$group_question <- factor(paste(trials$group, trials$question, sep = ":"))
fit <- glmer(error ~ 0 + cell + (1 | participant) + (1 | group_question),
             data = trials, family = binomial,
             control = glmerControl(optimizer = "bobyqa", optCtrl = list(maxfun = 1e5)))

beta <- fixef(fit)
v <- as.matrix(vcov(fit))
rows <- lapply(unique(trials$group), function(g) {
  m <- paste0("cell", g, "_v2")
  n <- paste0("cell", g, "_v1")
  se <- sqrt(v[m, m] + v[n, n] - 2 * v[m, n])
  data.frame(group = g, glmer = unname(beta[m] - beta[n]), glmer_se = se)
})
ours <- do.call(rbind, rows)
both <- merge(ours, platform, by = "group", sort = FALSE)
both$difference <- both$glmer - both$platform
both$relative <- both$difference / abs(both$glmer)

options(width = 120)
cat("Log odds ratio per group: lme4::glmer (Laplace ML) vs the platform (variational Bayes)\n\n")
print(both[, c("group", "glmer", "glmer_se", "platform", "platform_se", "difference", "relative")],
      digits = 4, row.names = FALSE)
cat(sprintf("\nMean absolute relative difference: %.1f%%; largest: %.1f%% (%d groups, %d trials)\n",
            100 * mean(abs(both$relative)), 100 * max(abs(both$relative)),
            nrow(both), nrow(trials)))
