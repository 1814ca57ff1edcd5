#include "graphgenerator.h"

#include <random>

namespace ds {

namespace {

const char *const kTypes[] = {"Conv2D", "BNInferenceD", "Relu", "Add", "MatMulV2", "Cast", "TransData", "Mul", "Sigmoid", "ReduceMeanD"};

GraphNode makeNode(const QString &name, const QString &type, std::mt19937 &rng)
{
    GraphNode n;
    n.name = name;
    n.type = type;
    GraphTensorDesc out;
    const bool half = type != QLatin1String("Const") && rng() % 3 != 0;
    out.dtype = half ? 1 : 0;
    out.dtypeName = half ? QStringLiteral("DT_FLOAT16") : QStringLiteral("DT_FLOAT");
    out.layout = type == QLatin1String("TransData") ? QStringLiteral("NC1HWC0") : QStringLiteral("NCHW");
    const std::int64_t c = std::int64_t(16) << (rng() % 5);
    out.shape = {1, c, 28, 28};
    n.outputDescs.push_back(std::move(out));
    return n;
}

} // namespace

Graph generateScopedGraph(const GeneratedGraphSpec &spec)
{
    std::mt19937 rng(spec.seed);
    auto chance = [&](int percent) { return int(rng() % 100) < percent; };
    Graph g;
    g.name = QStringLiteral("generated");
    g.nodes.reserve(size_t(spec.nodeCount()));
    g.nodes.push_back(makeNode(QStringLiteral("input"), QStringLiteral("IteratorV2"), rng));
    QString last = QStringLiteral("input");
    std::vector<QString> prevLayer, prevBlock;

    auto addOps = [&](const QString &scope, int count, std::vector<QString> &made, const std::vector<QString> &near,
                      const std::vector<QString> &far) {
        for (int k = 0; k < count; ++k) {
            if (k % 5 == 1 && k + 1 < count) { // a weight for the next op
                made.push_back(scope + QStringLiteral("/weight_%1").arg(k));
                g.nodes.push_back(makeNode(made.back(), QStringLiteral("Const"), rng));
                continue;
            }
            const QString type = QLatin1String(kTypes[rng() % std::size(kTypes)]);
            GraphNode n = makeNode(scope + QStringLiteral("/%1_%2").arg(type).arg(k), type, rng);
            n.inputs << last + QStringLiteral(":0");
            if (k % 5 == 2)
                n.inputs << made.back() + QStringLiteral(":0");
            if (!near.empty() && chance(12))
                n.inputs << near[rng() % near.size()] + QStringLiteral(":0");
            if (!far.empty() && chance(3))
                n.inputs << far[rng() % far.size()] + QStringLiteral(":0");
            if (made.size() > 8 && chance(8)) // fan-in from earlier in the same scope
                n.inputs << made[made.size() - 2 - rng() % 6] + QStringLiteral(":0");
            if (made.size() > 4 && chance(2))
                n.inputs << made[rng() % made.size()] + QStringLiteral(":-1"); // control edge
            last = n.name;
            made.push_back(n.name);
            g.nodes.push_back(std::move(n));
        }
    };

    for (int b = 0; b < spec.topGroups; ++b) {
        std::vector<QString> block;
        for (int l = 0; l < spec.subGroups; ++l) {
            std::vector<QString> layer;
            addOps(QStringLiteral("block%1/layer%2").arg(b).arg(l), spec.opsPerGroup, layer, prevLayer, prevBlock);
            block.insert(block.end(), layer.begin(), layer.end());
            prevLayer = std::move(layer);
        }
        prevBlock = std::move(block);
    }
    if (spec.flatGroupOps > 0) {
        std::vector<QString> flat;
        addOps(QStringLiteral("flat"), spec.flatGroupOps, flat, prevLayer, {});
    }
    // GE's top-level crowds, consumed by operators of the scopes (Graph::build resolves the
    // names whatever the order of the nodes).
    std::vector<size_t> compute;
    for (size_t n = 1; n < g.nodes.size(); ++n)
        if (g.nodes[n].type != QLatin1String("Const"))
            compute.push_back(n);
    for (int k = 0; k < spec.atomicCleans && !compute.empty(); ++k) {
        const QString name = QStringLiteral("atomic_addr_clean0_%1").arg(k + 10);
        g.nodes[compute[rng() % compute.size()]].inputs << name + QStringLiteral(":-1");
        g.nodes.push_back(makeNode(name, QStringLiteral("AtomicAddrClean"), rng));
    }
    for (int k = 0; k < spec.weightTransforms && !compute.empty(); ++k) {
        const QString var = k ? QStringLiteral("Variable_%1").arg(k) : QStringLiteral("Variable");
        const QString trans = QStringLiteral("trans_TransData_%1").arg(k + 3);
        g.nodes.push_back(makeNode(var, QStringLiteral("Variable"), rng));
        GraphNode t = makeNode(trans, QStringLiteral("TransData"), rng);
        t.inputs << var + QStringLiteral(":0");
        g.nodes.push_back(std::move(t));
        g.nodes[compute[rng() % compute.size()]].inputs << trans + QStringLiteral(":0");
    }
    GraphNode output = makeNode(QStringLiteral("output"), QStringLiteral("NetOutput"), rng);
    output.outputDescs.clear();
    output.inputs << last + QStringLiteral(":0");
    g.nodes.push_back(std::move(output));
    g.inputs << QStringLiteral("input:0");
    g.build();
    return g;
}

QByteArray geProtoText(const Graph &g)
{
    QByteArray t;
    t.reserve(qsizetype(g.nodes.size()) * 200);
    t += "name: \"" + g.name.toUtf8() + "\"\ngraph {\n  name: \"" + g.name.toUtf8() + "\"\n";
    for (const GraphNode &n : g.nodes) {
        t += "  op {\n    name: \"" + n.name.toUtf8() + "\"\n    type: \"" + n.type.toUtf8() + "\"\n";
        for (const QString &in : n.inputs)
            t += "    input: \"" + in.toUtf8() + "\"\n";
        for (const auto &d : n.outputDescs) {
            t += "    output_desc {\n      dtype: " + d.dtypeName.toUtf8() + "\n      shape {\n";
            for (auto dim : d.shape)
                t += "        dim: " + QByteArray::number(qlonglong(dim)) + "\n";
            t += "      }\n      layout: \"" + d.layout.toUtf8() + "\"\n    }\n";
        }
        t += "  }\n";
    }
    return t + "}\n";
}

} // namespace ds
