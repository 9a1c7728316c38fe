// A second turn with the same agent, guessed as a global conversation.
const plan = await agent('Draft a migration plan for the users table.');
const risks = await conversation.send('Now list the risks of that plan.');
return { plan, risks };
