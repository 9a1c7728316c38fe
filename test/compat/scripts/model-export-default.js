// A first attempt without a guide: the workflow as a module's default function.
export default async function main() {
  const files = await shell('printf "a.ts\\nb.ts\\n"');
  const names = files.stdout.trim().split('\n');
  const reviews = await parallel('reviews', Object.fromEntries(names.map((name) => [name, () => agent(`Review ${name}`)])));
  return { names, reviews };
}
