// A default function that takes the launch input.
export const meta = { name: 'greeter', description: 'Greets through an agent' };

export default async function main(input) {
  return await agent(`Greet ${input.who}`);
}
