// console.log habits: several values in one log call.
const plan = { steps: ['lint', 'test'] };
log('Plan ready:', plan, 'with', plan.steps.length, 'steps');
log({ done: false });
return plan.steps;
