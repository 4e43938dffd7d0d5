"""Pictures of datatypes (`mpipp layout`), gdb-free: layout.build() turns a
Datatype and a count into a Picture (cells, rows, markers, legend, or the
grid a 2-D subarray/darray selects from its array); text.render() draws it
for a terminal, svg.render() as SVG (hover titles name each element)."""
