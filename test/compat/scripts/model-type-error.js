// A script that reads a field an agent's text answer does not have.
const review = await agent('Review the diff and give a score.');
const score = review.score.toFixed(1);
return score;
