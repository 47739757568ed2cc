# scicampaign/: a campaign file's measurements run into one result set,
# with resume (scibench and mpibench do the measuring).
PROGRAMS += scicampaign
scicampaign_SRCS = scicampaign/scicampaign_main.c scicampaign/campaign.c scicampaign/run.c
scicampaign_LAYERS := util
TESTS += tests/test_campaign.c
TESTS += tests/test_campaign_resume.c
