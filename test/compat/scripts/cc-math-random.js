// A spot check of a random sample.
const files = args.files;
const sample = files.filter(() => Math.random() < 0.3);
return await parallel(sample.map((file) => () => agent(`Spot-check ${file}`)));
