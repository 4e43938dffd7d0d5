"""The cycles of the wait-for graph (gdb-free): strongly connected
components, and a shortest cycle through a rank of one.  Nodes are ranks
and groups (tuples): a group leads to its members."""


def strongly_connected(nodes, successors):
    """Tarjan's components (iterative) that contain a cycle."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for succ in it:
                if succ not in index:
                    index[succ] = low[succ] = counter[0]
                    counter[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(successors(succ))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in successors(node):
                    out.append(component)
    return out


def shortest_cycle(start, component, successors):
    """[start, ..., last] ranks with last → start, inside component (BFS).
    A group node (a tuple) leads to its members but the rank that entered
    it; each is expanded once (later, only the way back to start counts)."""
    parent, queue, expanded, members = {}, [start], set(), {}
    for rank in queue:
        for succ in successors(rank):
            if not isinstance(succ, tuple):
                found = [succ]
            elif succ not in component:
                continue
            elif succ in expanded:
                if succ not in members:
                    members[succ] = set(successors(succ))
                found = [start] if start in members[succ] else []
            else:
                expanded.add(succ)
                found = successors(succ)
            for member in found:
                if member == rank or member not in component:
                    continue
                if member == start:
                    path = [rank]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return list(reversed(path))
                if member not in parent:
                    parent[member] = rank
                    queue.append(member)
    return None
