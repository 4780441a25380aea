/** Index of the largest value; ties go to the lowest index (0 for an empty list). */
export function argmax(values: readonly number[]): number {
  let best = 0;
  values.forEach((v, i) => {
    if (v > values[best]!) best = i;
  });
  return best;
}
